package agent

// Sandboxed reports whether the agent's kernels run in the sandbox
// (kernelserver.Sandbox).
func (a *Agent) Sandboxed() bool { return a.cfg.Options.Sandbox }
