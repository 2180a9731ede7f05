package agent

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/modelopen"
	"github.com/freeact/desktop/agent/sandboxcfg"
)

// RestartNeeded lists the keys whose values differ between the options the
// agent runs with and next, among those only a new agent (Stop, New, Start)
// takes over.
func (a *Agent) RestartNeeded(next config.Options) []string {
	return config.RestartDiff(a.cfg.Options, next)
}

// Reconfigure takes over a reloaded workspace configuration between turns:
// the model and its settings, approval_timeout, subagents, skills, AGENTS.md
// and the system prompt apply from the next turn. Keys that need a new agent
// (see RestartNeeded) keep their running values and are returned.
func (a *Agent) Reconfigure(ctx context.Context, cfg *config.Config) ([]string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case !a.started || a.stopped:
		return nil, errors.New("reconfigure: the agent is not running")
	case a.cancel != nil:
		return nil, errors.New("reconfigure: a turn is running; try again when it ends")
	case cfg.Dir != a.cfg.Dir:
		return nil, fmt.Errorf("reconfigure: %s is another workspace than %s", cfg.Dir, a.cfg.Dir)
	}
	restart := a.RestartNeeded(cfg.Options)
	sandboxcfg.ProtectConfig(a.opts.perm, cfg) // the sandbox_config a restart will use
	// Keep what cannot change while running, so the agent's view stays
	// consistent with its kernel and connections.
	next := *cfg
	config.KeepRestartKeys(&next.Options, a.cfg.Options)
	system, err := a.systemPrompt(&next)
	if err != nil {
		return nil, fmt.Errorf("reconfigure: render system prompt: %w", err)
	}
	m, modelErr := a.model, a.modelErr
	o := next.Options
	// A model without its key opens once the key is there.
	if a.opts.model == nil && (m == nil || o.Model != a.cfg.Options.Model || !reflect.DeepEqual(o.ModelSettings, a.cfg.Options.ModelSettings) ||
		!reflect.DeepEqual(o.ProviderSettings, a.cfg.Options.ProviderSettings)) {
		var missing *MissingKeyError
		m, modelErr = modelopen.Open(ctx, &next)
		if modelErr != nil && !errors.As(modelErr, &missing) {
			return nil, fmt.Errorf("reconfigure: %w", modelErr)
		}
	}
	a.cfg, a.model, a.modelErr, a.system = &next, m, modelErr, system
	a.acceptMedia()
	a.approvalTimeout = 0
	if t := o.ApprovalTimeout; t != nil {
		a.approvalTimeout = time.Duration(*t * float64(time.Second))
	}
	a.subagents = nil
	if o.MaxSubagents > 0 {
		a.subagents = make(chan struct{}, o.MaxSubagents)
	}
	a.tools = a.toolDeclarations()
	return restart, nil
}
