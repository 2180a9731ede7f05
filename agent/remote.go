package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/files"
	"github.com/freeact/desktop/agent/remote"
	"github.com/freeact/desktop/kernel"
	"github.com/freeact/desktop/kernel/hub"
)

// connectRemote connects to the server of jupyter_url with the settings of
// agent.json.
func (a *Agent) connectRemote(ctx context.Context) error {
	o := a.cfg.Options
	token := ""
	if o.JupyterToken != nil {
		token = *o.JupyterToken
	}
	ro := kernel.RemoteOptions{
		Header: o.JupyterHeaders, KernelEnv: o.KernelEnv,
		WarmPool:        o.KernelPool != nil && *o.KernelPool,
		ReconnectWindow: time.Duration(o.JupyterReconnectTimeout * float64(time.Second)),
	}
	if ro.ReconnectWindow == 0 {
		ro.ReconnectWindow = -1 // 0 in agent.json: never
	}
	if o.KernelName != nil {
		ro.KernelName = *o.KernelName
	}
	if o.JupyterCAFile != nil && *o.JupyterCAFile != "" {
		ro.CAFile = *o.JupyterCAFile
		if !filepath.IsAbs(ro.CAFile) {
			ro.CAFile = filepath.Join(a.cfg.Dir, ro.CAFile)
		}
	}
	// A Hub (kernel/hub): sign in, start the user's server, use it.
	jupyterURL := *o.JupyterURL
	hc, err := hub.HTTPClient(ro.CAFile)
	if err != nil {
		return err
	}
	hubOpts := hub.ResolveOptions{Token: token, Lookup: a.cfg.Env.Getenv, Client: hc, Progress: a.opts.progress}
	if srvURL, hubToken, isHub, err := hub.Resolve(ctx, jupyterURL, hubOpts); err != nil {
		return err
	} else if isHub {
		// A server the Hub culled is started again for the next kernel.
		ro.Revive = func(ctx context.Context) error {
			_, _, _, err := hub.Resolve(ctx, *o.JupyterURL, hubOpts)
			return err
		}
		jupyterURL, token = srvURL, hubToken
	}
	srv, err := kernel.ConnectServer(ctx, jupyterURL, token, ro)
	switch {
	case errors.Is(err, kernel.ErrUntrustedCertificate) && ro.CAFile == "":
		return fmt.Errorf("%w\nfix: set jupyter_ca_file in %s to the PEM file of the CA that signed the server's certificate, or add that CA to the system's trust store",
			err, filepath.Join(a.cfg.FreeactDir, config.AgentFile))
	case errors.Is(err, kernel.ErrUntrustedCertificate):
		return fmt.Errorf("%w\nfix: jupyter_ca_file (%s) does not hold the CA that signed the server's certificate", err, ro.CAFile)
	case err != nil:
		return err
	}
	a.server, a.executors = srv, jupyter{srv}
	a.remote = remote.New(srv, a.opts.log)
	return nil
}

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
