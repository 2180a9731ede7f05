package agent

import (
	"errors"
	"path/filepath"

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
	sb := &kernel.Sandbox{Workspace: a.cfg.Dir}
	if o.SandboxConfig != nil && *o.SandboxConfig != "" {
		sb.Settings = *o.SandboxConfig
		if !filepath.IsAbs(sb.Settings) {
			sb.Settings = filepath.Join(a.cfg.Dir, sb.Settings)
		}
	}
	return sb, nil
}

// Sandboxed reports whether the agent's kernels run in the sandbox.
func (a *Agent) Sandboxed() bool { return a.cfg.Options.Sandbox }
