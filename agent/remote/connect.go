package remote

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/kernel"
)

// Connect connects to the Jupyter server of cfg's jupyter_url with its
// token, headers, kernel name, CA file (relative to the workspace unless
// absolute) and reconnection window; an untrusted certificate is an error
// that says how to trust it.
func Connect(ctx context.Context, cfg *config.Config) (*kernel.Server, error) {
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
	srv, err := kernel.ConnectServer(ctx, *o.JupyterURL, token, ro)
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
