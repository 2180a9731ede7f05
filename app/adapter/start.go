package adapter

import (
	"context"
	"github.com/freeact/desktop/agent/longsession"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/modelopen"
	"github.com/freeact/desktop/kernel"
)

// AgentSpec is what a front end starts an agent with: the parts every
// front end (the window, the terminal, ACP) shares, each one explicit.
type AgentSpec struct {
	// Workspace is the opened workspace; Config its configuration as the
	// front end adjusted it (e.g. --sandbox, the client's MCP servers).
	Workspace *agent.Workspace
	Config    *config.Config
	// SessionID is the session to continue; "" starts a new one.
	SessionID string
	// Fork continues a copy of SessionID (longsession.CopySession), made after
	// the checks; Forked is told the copy's id.
	Fork   bool
	Forked func(id string)
	// NewIfUnsaved starts a new session when SessionID has nothing
	// written yet (the window: a restart before the first turn), rather
	// than open that id.
	NewIfUnsaved bool
	// CheckModel refuses to start when the model has no key: the front
	// ends that cannot ask for one say so before the kernel starts.
	CheckModel bool
	// Warn receives the configuration's warnings; nil drops them.
	Warn func(config.Warning)
	// Starting is called once the checks passed, before the kernel
	// starts; nil: nothing.
	Starting func()
	// Progress receives the Python set-up's steps; nil drops them.
	Progress func(kernel.Progress)
	// SignIn and Forms are how MCP servers' sign-ins and forms reach the
	// user.
	SignIn mcp.SignInOptions
	Forms  func(context.Context, mcp.Form) (mcp.Answer, error)
	// Options are added after the ones above.
	Options []agent.Option
}

// StartAgent starts the agent of spec under ctx. A session open in another
// freeact process is an error BusySession recognises; a model without a
// key (with CheckModel) a *ModelError.
func StartAgent(ctx context.Context, spec AgentSpec) (*agent.Agent, error) {
	cfg := spec.Config
	if spec.Warn != nil {
		for _, w := range cfg.Warnings {
			spec.Warn(w)
		}
	}
	if spec.CheckModel {
		if err := modelopen.Check(cfg); err != nil {
			return nil, &ModelError{Err: err}
		}
	}
	id := spec.SessionID
	if spec.Fork && id != "" {
		copied, err := longsession.CopySession(cfg, id)
		if err != nil {
			return nil, err
		}
		if spec.Forked != nil {
			spec.Forked(copied)
		}
		id = copied
	}
	opts := []agent.Option{agent.WithMCPUser(spec.SignIn, spec.Forms)}
	if spec.Progress != nil {
		opts = append(opts, agent.WithProvisionProgress(spec.Progress))
	}
	if id != "" && (!spec.NewIfUnsaved || SessionExists(cfg, id)) {
		opts = append(opts, agent.WithSessionID(id))
	}
	opts = append(opts, spec.Options...)
	if spec.Starting != nil {
		spec.Starting()
	}
	// The agent's start errors say what failed (agent.StartError) and
	// are the front ends' to word.
	return spec.Workspace.StartAgent(ctx, cfg, opts...)
}

// ModelError is StartAgent's refusal of a model without a key (or an
// unknown model): the front end says how to give one.
type ModelError struct{ Err error }

func (e *ModelError) Error() string { return e.Err.Error() }
func (e *ModelError) Unwrap() error { return e.Err }
