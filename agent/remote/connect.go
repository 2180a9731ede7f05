package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/internal/redact"
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
	if o.JupyterServerName != nil {
		hubOpts.Server = *o.JupyterServerName
	}
	if srvURL, hubToken, isHub, err := hub.Resolve(ctx, jupyterURL, hubOpts); err != nil {
		return nil, err
	} else if !isHub && hubOpts.Server != "" {
		// Not a Hub, or no answer: a server that does not answer is
		// reported as such by the connection below.
		var nh *hub.NotHubError
		if _, _, derr := hub.Detect(ctx, hc, jupyterURL); errors.As(derr, &nh) {
			return nil, fmt.Errorf("jupyter_server_name %q names a server on a JupyterHub, and jupyter_url %s is not a JupyterHub (%s)\nfix: remove jupyter_server_name from %s, or set jupyter_url to the Hub's address (https://hub.example.org/)",
				hubOpts.Server, redact.URL(jupyterURL), nh.Found, filepath.Join(cfg.FreeactDir, config.AgentFile))
		}
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
	case err != nil && jupyterURL == *o.JupyterURL:
		// Not a Hub either? Then say what the URL is not.
		if nh := neither(ctx, hc, jupyterURL, err); nh != nil {
			return nil, nh
		}
		return nil, err
	case err != nil:
		return nil, err
	}
	return srv, nil
}

// neither is the error for a jupyter_url that answers as neither a
// JupyterHub nor a Jupyter server (a web site, a wrong path): connErr is
// the Jupyter server's answer (an HTTP error other than a refused token,
// or not JSON), and the Hub's API, asked again, says what it answered. It
// is nil when connErr is something else (a refused token, no answer).
func neither(ctx context.Context, hc *http.Client, rawURL string, connErr error) error {
	var he *kernel.HTTPError
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(connErr, &he) && he.Status != http.StatusUnauthorized && he.Status != http.StatusForbidden:
	case errors.As(connErr, &syn), errors.As(connErr, &typ):
	default:
		return nil
	}
	_, _, derr := hub.Detect(ctx, hc, rawURL)
	var nh *hub.NotHubError
	if !errors.As(derr, &nh) {
		return nil
	}
	server := "it does not list kernels at api/kernelspecs"
	if he != nil {
		server = fmt.Sprintf("GET %s answered HTTP %d", he.Path, he.Status)
	}
	return fmt.Errorf("jupyter_url %s is neither a JupyterHub nor a Jupyter server: %s, where a Hub gives its version, and %s, where a Jupyter server or gateway lists its kernels\nfix: check jupyter_url: a JupyterHub's address is https://hub.example.org/ (or …/hub/); a Jupyter server's or gateway's is where it serves, e.g. http://host:8888/ (with its base_url, if it has one)",
		redact.URL(rawURL), nh.Found, server)
}
