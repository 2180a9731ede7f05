package agent

import (
	"context"
	"fmt"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/files"
	"github.com/freeact/desktop/kernel"
)

// openRemote sets up the remote workspace through the main kernel: the
// folder (made when missing), the kernel's working directory and import
// path, the file tools, the generated tools and skills, offloading, and
// the system prompt that says where code runs.
func (a *Agent) openRemote(ctx context.Context) error {
	r := a.remote
	if r == nil {
		return nil
	}
	k, ok := a.kern.(*kernel.Kernel)
	if !ok {
		return fmt.Errorf("remote workspace: the executor %T is not a Jupyter kernel", a.kern)
	}
	workdir := ""
	if w := a.cfg.Options.JupyterWorkdir; w != nil {
		workdir = *w
	}
	f, err := r.Open(ctx, k, workdir)
	if err != nil {
		return err
	}
	a.ws = files.NewWorkspaceOn(f.Root(), f)
	if err := r.Sync(ctx, a.cfg); err != nil {
		return err
	}
	if a.offloader != nil {
		a.offloader.Mirror = r.Mirror
	}
	if a.system, err = a.systemPrompt(a.cfg); err != nil {
		return fmt.Errorf("render system prompt: %w", err)
	}
	return nil
}

// systemPrompt renders the system prompt of cfg for where code runs.
func (a *Agent) systemPrompt(cfg *config.Config) (string, error) {
	return cfg.SystemPromptAt(a.remote.Place())
}
