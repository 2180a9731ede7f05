package agent

import (
	"slices"

	"github.com/freeact/desktop/agent/sandboxcfg"
	"github.com/freeact/desktop/kernel"
)

// sandbox returns the kernel sandbox that agent.json asks for, or nil
// (agent/sandboxcfg): it hides the app's secret stores, the folders the
// options moved one of them to, the seal key and the stored API keys.
func (a *Agent) sandbox() (*kernel.Sandbox, error) {
	return sandboxcfg.Settings(a.cfg, slices.Concat(a.opts.dirs.SecretPaths(), a.opts.hidden, []string{a.ckpt.Root(), a.opts.kernelDir}))
}

// Sandboxed reports whether the agent's kernels run in the sandbox.
func (a *Agent) Sandboxed() bool { return a.cfg.Options.Sandbox }
