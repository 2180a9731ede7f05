package kernel

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/freeact/desktop/internal/redact"
)

// RemoteOptions configure a connection to an existing server: a
// jupyter_server (also behind JupyterHub), a Kernel Gateway or an
// Enterprise Gateway.
type RemoteOptions struct {
	// TLS overrides the TLS client configuration for https/wss URLs.
	TLS *tls.Config
	// CAFile is a PEM file of certificates trusted besides the system's
	// (a self-signed server or a private CA). Ignored when TLS is set.
	CAFile string
	// Header is sent with every request and with the websocket handshake,
	// e.g. {"Authorization": "Bearer <JupyterHub token>"}. An Authorization
	// header replaces the token.
	Header map[string]string
	// KernelName to start; default the server's default kernel.
	KernelName string
	// KernelEnv goes into each kernel start request ({"env": ...}), where
	// Enterprise Gateway and Kernel Gateway read KERNEL_* variables
	// (KERNEL_USERNAME, KERNEL_NAMESPACE, ...). Only KERNEL_* names are
	// sent: a gateway given "env" starts the kernel with those variables
	// and little else.
	KernelEnv map[string]string
	// WarmPool keeps one spare kernel started (on a cluster a spare is a
	// whole pod, so it is off unless asked).
	WarmPool bool
	// MaxMessageSize is the server's websocket_max_message_size; replies
	// to the kernel larger than this are turned into errors instead of
	// being sent (the server would drop the connection). Default 10 MiB,
	// tornado's default.
	MaxMessageSize int64
	// ReconnectWindow is how long a broken kernel websocket is dialled
	// again (with backoff) before the kernel counts as lost; default 60 s,
	// negative for never.
	ReconnectWindow time.Duration
	// Revive, when set, is asked to bring the server back when a fresh
	// kernel cannot be started on it after one was lost (a JupyterHub's
	// culler stopped the user's server); a nil error lets the start be
	// tried once more.
	Revive func(ctx context.Context) error

	// plainTCP leaves TCP_QUICKACK off (benchmarks compare).
	plainTCP bool
}

// DefaultReconnectWindow is RemoteOptions.ReconnectWindow's default.
const DefaultReconnectWindow = 60 * time.Second

// ErrUntrustedCertificate is wrapped by the error of ConnectServer when the
// server's TLS certificate is not signed by a trusted authority.
var ErrUntrustedCertificate = errors.New("the server's TLS certificate is not trusted")

// remote is what a server we connect to has beyond a local one.
type remote struct {
	kernelEnv map[string]string // KERNEL_* variables for start requests
	contents  bool              // the server has a Contents API (api/contents)
	window    time.Duration     // reconnect window; <= 0: none
	secrets   []string          // never shown in errors
	plainTCP  bool              // no TCP_QUICKACK
	revive    func(context.Context) error
}

// ConnectServer uses an existing Jupyter server or gateway at rawURL (http
// or https) with the given token. A token in the URL (?token=..., as
// Jupyter prints it) is taken from there, and a trailing /lab or /tree is
// dropped. The token is checked right away (by listing the kernelspecs),
// so a wrong one is reported here; no error shows the token.
func ConnectServer(ctx context.Context, rawURL, token string, opts RemoteOptions) (*Server, error) {
	u, token, err := parseServerURL(rawURL, token)
	if err != nil {
		return nil, fmt.Errorf("connect to jupyter server: %w", err)
	}
	if opts.MaxMessageSize <= 0 {
		opts.MaxMessageSize = 10 << 20
	}
	if opts.ReconnectWindow == 0 {
		opts.ReconnectWindow = DefaultReconnectWindow
	}
	tlsConf := opts.TLS
	if tlsConf == nil && opts.CAFile != "" {
		if tlsConf, err = caConfig(opts.CAFile); err != nil {
			return nil, fmt.Errorf("connect to jupyter server %s: %w", u, err)
		}
	}
	header := http.Header{}
	for k, v := range opts.Header {
		header.Set(k, v)
	}
	r := &remote{window: opts.ReconnectWindow, kernelEnv: map[string]string{}, plainTCP: opts.plainTCP, revive: opts.Revive}
	for k, v := range opts.KernelEnv {
		if strings.HasPrefix(k, "KERNEL_") {
			r.kernelEnv[k] = v
		}
	}
	for _, secret := range append([]string{token}, slices.Collect(maps.Values(opts.Header))...) {
		if len(secret) >= 4 {
			r.secrets = append(r.secrets, secret)
			// "Bearer xyz": the credential alone, too.
			if _, cred, ok := strings.Cut(secret, " "); ok && len(cred) >= 4 {
				r.secrets = append(r.secrets, cred)
			}
		}
	}
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 15 * time.Second}
	tr := &http.Transport{
		MaxIdleConnsPerHost: 8, TLSClientConfig: tlsConf, Proxy: http.ProxyFromEnvironment,
		DialContext: dialer.DialContext, TLSHandshakeTimeout: 30 * time.Second,
	}
	s := &Server{
		http:       &http.Client{Transport: tr},
		tls:        tlsConf,
		kernelName: opts.KernelName,
		warm:       opts.WarmPool,
		maxMessage: opts.MaxMessageSize,
		remote:     r,
		live:       map[string]*Kernel{},
	}
	s.ep.Store(&endpoint{base: u, token: token, header: header})
	var specs struct {
		Default     string         `json:"default"`
		Kernelspecs map[string]any `json:"kernelspecs"`
	}
	if err := s.rest(ctx, http.MethodGet, "api/kernelspecs", nil, &specs); err != nil {
		return nil, fmt.Errorf("connect to jupyter server %s: %w", u, explainConnect(err))
	}
	if opts.KernelName != "" && specs.Kernelspecs != nil {
		if _, ok := specs.Kernelspecs[opts.KernelName]; !ok {
			names := slices.Sorted(maps.Keys(specs.Kernelspecs))
			return nil, fmt.Errorf("connect to jupyter server %s: it has no kernel %q; its kernels are: %s", u, opts.KernelName, strings.Join(names, ", "))
		}
	}
	// A Contents API answers a directory listing of the root; gateways
	// have none (404).
	var root struct {
		Type string `json:"type"`
	}
	if err := s.rest(ctx, http.MethodGet, "api/contents?content=0", nil, &root); err == nil && root.Type == "directory" {
		r.contents = true
	}
	s.initPool()
	return s, nil
}

// Remote reports whether the server is one we connected to (not one we
// started).
func (s *Server) Remote() bool { return s.remote != nil }

// HasContents reports whether the server has a Contents API (a
// jupyter_server has one; Kernel and Enterprise Gateway have not).
func (s *Server) HasContents() bool { return s.remote != nil && s.remote.contents }

// parseServerURL checks rawURL and takes a token out of its query.
func parseServerURL(rawURL, token string) (*url.URL, string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, "", fmt.Errorf("%q is not an http(s) URL (example: https://host:8888/)", redact.URL(rawURL))
	}
	if q := u.Query(); q.Has("token") {
		inURL := q.Get("token")
		if token != "" && token != inURL {
			return nil, "", errors.New("the URL carries a token (?token=...) and another token is set as well: keep one of them")
		}
		token = inURL
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil
	// The address Jupyter prints opens an app: its base is the folder.
	for _, app := range []string{"/lab", "/tree", "/lab/", "/tree/"} {
		if strings.HasSuffix(u.Path, app) {
			u.Path = strings.TrimSuffix(u.Path, app)
			break
		}
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u, token, nil
}

// caConfig trusts the system's certificates and those of file.
func caConfig(file string) (*tls.Config, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read the CA certificates: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate (-----BEGIN CERTIFICATE-----)", file)
	}
	return &tls.Config{RootCAs: pool}, nil
}

// explainConnect marks certificate errors so callers can say which
// setting fixes them.
func explainConnect(err error) error {
	var unknown x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &unknown), errors.As(err, &verify) && errors.As(verify.Err, &unknown):
		return fmt.Errorf("%w (signed by an unknown authority): %v", ErrUntrustedCertificate, err)
	case errors.As(err, &hostname):
		return fmt.Errorf("the server's TLS certificate is for another host name: %w", err)
	case errors.As(err, &invalid):
		return fmt.Errorf("the server's TLS certificate is not valid: %w", err)
	}
	return err
}

// authorize sets the request headers of an endpoint: its own headers, and
// the token unless they carry an Authorization.
func (ep *endpoint) authorize(h http.Header) {
	for k, v := range ep.header {
		h[k] = v
	}
	if h.Get("Authorization") == "" && ep.token != "" {
		h.Set("Authorization", "token "+ep.token)
	}
}

// redact hides the server's secrets in err's message; errors.Is and As
// still see what it wraps.
func (s *Server) redact(err error) error {
	if err == nil || s.remote == nil {
		return err
	}
	msg := err.Error()
	clean := msg
	for _, secret := range s.remote.secrets {
		clean = strings.ReplaceAll(clean, secret, "***")
		clean = strings.ReplaceAll(clean, url.QueryEscape(secret), "***")
	}
	if clean == msg {
		return err
	}
	return &redacted{err: err, msg: clean}
}

type redacted struct {
	err error
	msg string
}

func (r *redacted) Error() string { return r.msg }
func (r *redacted) Unwrap() error { return r.err }

// startBody is the body of a kernel start request.
func (s *Server) startBody() map[string]any {
	body := map[string]any{}
	if s.kernelName != "" {
		body["name"] = s.kernelName
	}
	if r := s.remote; r != nil {
		if r.contents {
			// Start in the server's root, which Files maps paths against.
			body["path"] = ""
		}
		if len(r.kernelEnv) > 0 {
			body["env"] = r.kernelEnv
		}
	}
	return body
}
