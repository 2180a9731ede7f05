package hub

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/freeact/desktop/kernel"
)

// TokenName is the name the token of the Hub at base is kept under in the
// key store (config.AppStore): JUPYTERHUB_TOKEN_ and the Hub's host, port
// and path in capitals, e.g. JUPYTERHUB_TOKEN_HUB_EXAMPLE_ORG. Like every
// stored key it can also come from the environment or .env.
func TokenName(base *url.URL) string {
	s := strings.ToUpper(strings.TrimSuffix(base.Host+base.Path, "/"))
	var b strings.Builder
	b.WriteString("JUPYTERHUB_TOKEN_")
	last := '_'
	for _, r := range s {
		if (r < 'A' || r > 'Z') && (r < '0' || r > '9') {
			r = '_'
		}
		if r == '_' && last == '_' {
			continue
		}
		b.WriteRune(r)
		last = r
	}
	return strings.TrimSuffix(b.String(), "_")
}

// HTTPClient is the client for a Hub's API: the system's trust store and
// the certificates of caFile (jupyter_ca_file) when given.
func HTTPClient(caFile string) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("read jupyter_ca_file: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("jupyter_ca_file %s holds no PEM certificate", caFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	// Each request but the progress stream (Start lifts it) is short.
	return &http.Client{Transport: tr, Timeout: 2 * time.Minute}, nil
}

// ResolveOptions say how Resolve reaches a Hub.
type ResolveOptions struct {
	// Token is jupyter_token when agent.json gives one; else Lookup is
	// asked for TokenName.
	Token  string
	Lookup func(name string) string
	// Server is the name of the user's server; "" the default one.
	Server string
	// Client for the Hub's API (HTTPClient).
	Client *http.Client
	// Progress receives the steps of starting the server.
	Progress func(kernel.Progress)
}

// Resolve turns a jupyter_url that names a Hub into the user's running
// single-user server and the token to use there: it signs in with the
// token, checks its scopes and starts the server when it is stopped. A URL
// that is not a Hub gives ok false and no error (it is a Jupyter server,
// or nothing: the caller's connection says which). A Hub without a token
// is an error that says how to sign in.
func Resolve(ctx context.Context, rawURL string, o ResolveOptions) (server, token string, ok bool, err error) {
	base, info, err := Detect(ctx, o.Client, rawURL)
	if err != nil {
		return "", "", false, nil
	}
	token = o.Token
	if token == "" && o.Lookup != nil {
		token = o.Lookup(TokenName(base))
	}
	if token == "" {
		return "", "", true, &noTokenError{fmt.Sprintf("%s is a JupyterHub (%s) and freeact has no token for it\nfix: create a token on %s (scopes %s) and paste it in Settings → Kernel, or run `freeact remote login --workspace DIR` (it reads the token from stdin), or set %s",
			base.Redacted(), info.Version, base.JoinPath("hub", "token"), strings.Join(Scopes, ", "), TokenName(base))}
	}
	c := New(base, token, o.Client)
	u, err := c.Me(ctx)
	if err != nil {
		return "", "", true, err
	}
	if err := c.CheckScopes(u); err != nil {
		return "", "", true, err
	}
	srv, err := c.Start(ctx, u, o.Server, o.Progress)
	if err != nil {
		return "", "", true, err
	}
	return srv.String(), token, true, nil
}

// SignIn checks token against the Hub of rawURL (recognised, the owner a
// user, the scopes there) before it is stored. It returns the Hub's base
// URL and the user's name.
func SignIn(ctx context.Context, client *http.Client, rawURL, token string) (*url.URL, string, error) {
	base, _, err := Detect(ctx, client, rawURL)
	if errors.Is(err, ErrNotHub) {
		return nil, "", fmt.Errorf("jupyter_url %s does not answer as a JupyterHub (GET hub/api)\nfix: for a Jupyter server or gateway put its token in jupyter_token instead; for a Hub, give its address (https://hub.example.org/ or …/hub/)", base.Redacted())
	}
	if err != nil {
		return nil, "", err
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return nil, "", fmt.Errorf("no token given\nfix: create one on %s and pass it on stdin", base.JoinPath("hub", "token"))
	}
	c := New(base, token, client)
	u, err := c.Me(ctx)
	if err != nil {
		return nil, "", err
	}
	if err := c.CheckScopes(u); err != nil {
		return nil, "", err
	}
	return base, u.Name, nil
}

// noTokenError says how to sign in to a Hub; it is ErrNoToken.
type noTokenError struct{ msg string }

func (e *noTokenError) Error() string        { return e.msg }
func (e *noTokenError) Is(target error) bool { return target == ErrNoToken }
