package remote

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/kernel"
	"github.com/freeact/desktop/kernel/hub"
)

// Connect connects to the Jupyter server of cfg's jupyter_url with its
// token, headers, kernel name, CA file (relative to the workspace unless
// absolute) and reconnection window; an untrusted certificate is an error
// that says how to trust it. A jupyter_url that names a JupyterHub
// (kernel/hub) signs in, starts the user's server (its progress goes to
// progress, which may be nil) and uses it.
func Connect(ctx context.Context, cfg *config.Config, progress func(kernel.Progress)) (*kernel.Server, error) {
	o := cfg.Options
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
			ro.CAFile = filepath.Join(cfg.Dir, ro.CAFile)
		}
	}
	// A Hub (kernel/hub): sign in, start the user's server, use it.
	jupyterURL := *o.JupyterURL
	hc, err := hub.HTTPClient(ro.CAFile)
	if err != nil {
		return nil, err
	}
	hubOpts := hub.ResolveOptions{Token: token, Lookup: cfg.Env.Getenv, Client: hc, Progress: progress}
	if srvURL, hubToken, isHub, err := hub.Resolve(ctx, jupyterURL, hubOpts); err != nil {
		return nil, err
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
		return nil, fmt.Errorf("%w\nfix: set jupyter_ca_file in %s to the PEM file of the CA that signed the server's certificate, or add that CA to the system's trust store",
			err, filepath.Join(cfg.FreeactDir, config.AgentFile))
	case errors.Is(err, kernel.ErrUntrustedCertificate):
		return nil, fmt.Errorf("%w\nfix: jupyter_ca_file (%s) does not hold the CA that signed the server's certificate", err, ro.CAFile)
	case err != nil:
		return nil, err
	}
	return srv, nil
}
