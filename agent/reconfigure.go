package agent

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/freeact/desktop/agent/config"
)

// restartKeys are the agent.json keys a running agent cannot take over:
// they shape the kernel, its server, the MCP connections, tool search or
// the session store, which are made at Start. field returns a pointer to
// the key's field.
var restartKeys = []struct {
	key   string
	field func(*config.Options) any
}{
	{"python", func(o *config.Options) any { return &o.Python }},
	{"jupyter_url", func(o *config.Options) any { return &o.JupyterURL }},
	{"jupyter_token", func(o *config.Options) any { return &o.JupyterToken }},
	{"jupyter_workdir", func(o *config.Options) any { return &o.JupyterWorkdir }},
	{"jupyter_headers", func(o *config.Options) any { return &o.JupyterHeaders }},
	{"jupyter_ca_file", func(o *config.Options) any { return &o.JupyterCAFile }},
	{"jupyter_reconnect_timeout", func(o *config.Options) any { return &o.JupyterReconnectTimeout }},
	{"kernel_name", func(o *config.Options) any { return &o.KernelName }},
	{"kernel_pool", func(o *config.Options) any { return &o.KernelPool }},
	{"kernel_env", func(o *config.Options) any { return &o.KernelEnv }},
	{"images_dir", func(o *config.Options) any { return &o.ImagesDir }},
	{"execution_timeout", func(o *config.Options) any { return &o.ExecutionTimeout }},
	{"sandbox", func(o *config.Options) any { return &o.Sandbox }},
	{"sandbox_config", func(o *config.Options) any { return &o.SandboxConfig }},
	{"mcp_servers", func(o *config.Options) any { return &o.MCPServers }},
	{"ptc_servers", func(o *config.Options) any { return &o.PTCServers }},
	{"tool_search", func(o *config.Options) any { return &o.ToolSearch }},
	{"enable_persistence", func(o *config.Options) any { return &o.EnablePersistence }},
	{"tool_result_inline_max_bytes", func(o *config.Options) any { return &o.ToolResultInlineMaxBytes }},
	{"tool_result_preview_chars", func(o *config.Options) any { return &o.ToolResultPreviewChars }},
}

// RestartNeeded lists the keys whose values differ between the options the
// agent runs with and next, among those only a new agent (Stop, New, Start)
// takes over.
func (a *Agent) RestartNeeded(next config.Options) []string {
	return RestartDiff(a.cfg.Options, next)
}

// RestartDiff lists the keys whose values differ between cur and next,
// among those only a new agent takes over: what a start with cur (one that
// failed, or is still under way) would not have of next.
func RestartDiff(cur, next config.Options) []string {
	var keys []string
	for _, k := range restartKeys {
		if !reflect.DeepEqual(reflect.ValueOf(k.field(&cur)).Elem().Interface(), reflect.ValueOf(k.field(&next)).Elem().Interface()) {
			keys = append(keys, k.key)
		}
	}
	return keys
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
	protectConfig(a.opts.perm, cfg) // the sandbox_config a restart will use
	// Keep what cannot change while running, so the agent's view stays
	// consistent with its kernel and connections.
	next := *cfg
	cur := a.cfg.Options
	for _, k := range restartKeys {
		reflect.ValueOf(k.field(&next.Options)).Elem().Set(reflect.ValueOf(k.field(&cur)).Elem())
	}
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
		m, modelErr = openModel(ctx, &next)
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

// RestartKeys lists the agent.json keys a running agent takes over only
// when it is started again.
func RestartKeys() []string {
	out := make([]string, len(restartKeys))
	for i, k := range restartKeys {
		out[i] = k.key
	}
	return out
}
