package agent

import (
	"errors"
	"path/filepath"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/permission"
	"github.com/freeact/desktop/kernel"
)

// sandbox returns the kernel sandbox that agent.json asks for, or nil.
// sandbox_config is relative to the workspace unless absolute.
func (a *Agent) sandbox() (*kernel.Sandbox, error) {
	o := a.cfg.Options
	if !o.Sandbox {
		return nil, nil
	}
	if o.JupyterURL != nil && *o.JupyterURL != "" {
		return nil, errors.New("sandbox mode confines the local kernel and cannot be used with jupyter_url: turn one of them off in .freeact/agent.json")
	}
	return &kernel.Sandbox{Workspace: a.cfg.Dir, Settings: sandboxConfig(a.cfg)}, nil
}

// sandboxConfig returns the file sandbox_config names (relative to the
// workspace unless absolute), or "".
func sandboxConfig(cfg *config.Config) string {
	switch p := cfg.Options.SandboxConfig; {
	case p == nil || *p == "":
		return ""
	case filepath.IsAbs(*p):
		return *p
	default:
		return filepath.Join(cfg.Dir, *p)
	}
}

// protectConfig tells the permission manager which files change what the
// agent may do without asking: agent.json, freeact 0.11's config.toml and
// the sandbox settings (the app's file and the one sandbox_config names).
// Writes of them are asked every time.
func protectConfig(perm *permission.Manager, cfg *config.Config) {
	if perm == nil {
		return
	}
	perm.Protect(filepath.Join(cfg.FreeactDir, config.AgentFile), filepath.Join(cfg.FreeactDir, config.ConfigTOML),
		filepath.Join(cfg.FreeactDir, config.SandboxFile), sandboxConfig(cfg))
}

// Sandboxed reports whether the agent's kernels run in the sandbox.
func (a *Agent) Sandboxed() bool { return a.cfg.Options.Sandbox }
