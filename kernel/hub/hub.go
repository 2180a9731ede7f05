// Package hub lets a JupyterHub be a workspace's Jupyter server: it
// recognises a Hub from its API (GET hub/api), checks a Hub token's scopes,
// starts the user's server (or a named server) when it is stopped and
// follows the Hub's progress stream until the server is ready. The
// single-user server it returns (/user/NAME/ under the Hub) is then used
// with the Hub token like any other jupyter_server (kernel.ConnectServer).
//
// The token travels only as "Authorization: token …" to the Hub's own
// origin; no error, progress message or log line of this package contains
// it (errors pass through Client.clean).
package hub

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/freeact/desktop/internal/redact"
	"github.com/freeact/desktop/kernel"
)

// Scopes are the token scopes freeact needs: to reach the user's servers,
// to start them, and to read their state. Narrower forms (…!user=NAME,
// …!server=NAME/SERVER) count as well.
var Scopes = []string{"access:servers!user", "servers!user", "read:servers!user"}

// Info is what GET hub/api answers.
type Info struct {
	Version string `json:"version"`
}

// ProgressPrefix begins every progress step Start reports.
const ProgressPrefix = "JupyterHub: "

// ErrNotHub says that the URL does not answer as a JupyterHub.
var ErrNotHub = errors.New("not a JupyterHub")

// Base is the Hub's base URL for a jupyter_url that names a Hub: the URL
// itself, or its parent when it ends in hub/ (https://hub.example.org/hub/
// → https://hub.example.org/). Query and fragment are dropped.
func Base(rawURL string) (*url.URL, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s is not an http(s) URL", redact.URL(rawURL))
	}
	b := *u
	b.RawQuery, b.Fragment, b.User = "", "", nil
	p := strings.TrimSuffix(b.Path, "/")
	p = strings.TrimSuffix(p, "/hub")
	b.Path = p + "/"
	b.RawPath = ""
	return &b, nil
}

// Detect asks rawURL's Hub API (GET hub/api, which needs no token) whether
// it is a JupyterHub. A server that answers but not as a Hub (a
// jupyter_server, a gateway) gives ErrNotHub.
func Detect(ctx context.Context, client *http.Client, rawURL string) (*url.URL, Info, error) {
	base, err := Base(rawURL)
	if err != nil {
		return nil, Info{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base.JoinPath("hub", "api").String(), nil)
	if err != nil {
		return nil, Info{}, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, Info{}, fmt.Errorf("ask %s whether it is a JupyterHub: %w", base.Redacted(), redact.Err(err))
	}
	defer resp.Body.Close()
	var info Info
	switch {
	case resp.StatusCode != http.StatusOK:
		return base, Info{}, &NotHubError{Found: fmt.Sprintf("GET %s answered HTTP %d", base.JoinPath("hub", "api").Redacted(), resp.StatusCode)}
	case json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&info) != nil || info.Version == "":
		kind := resp.Header.Get("Content-Type")
		if kind == "" {
			kind = "no content type"
		}
		return base, Info{}, &NotHubError{Found: fmt.Sprintf("GET %s answered something that is not the Hub's version (%s)", base.JoinPath("hub", "api").Redacted(), kind)}
	}
	return base, info, nil
}

// NotHubError is ErrNotHub with what the URL answered instead.
type NotHubError struct {
	// Found says what GET hub/api answered.
	Found string
}

func (e *NotHubError) Error() string        { return "not a JupyterHub: " + e.Found }
func (e *NotHubError) Is(target error) bool { return target == ErrNotHub }

// Client talks to a Hub's REST API with a token.
type Client struct {
	base  *url.URL
	token string
	http  *http.Client
}

// New is a client of the Hub at base (from Detect) with token.
func New(base *url.URL, token string, client *http.Client) *Client {
	return &Client{base: base, token: token, http: client}
}

// Base is the Hub's base URL.
func (c *Client) Base() *url.URL { return c.base }

// TokenPage is where the user creates a token.
func (c *Client) TokenPage() string { return c.base.JoinPath("hub", "token").String() }

// Server is one of a user's servers, as the Hub reports it.
type Server struct {
	Name        string `json:"name"`
	Ready       bool   `json:"ready"`
	Stopped     bool   `json:"stopped"`
	Pending     string `json:"pending"`
	URL         string `json:"url"`
	ProgressURL string `json:"progress_url"`
}

// User is the token's owner.
type User struct {
	Kind    string            `json:"kind"`
	Name    string            `json:"name"`
	Scopes  []string          `json:"scopes"`
	Servers map[string]Server `json:"servers"`
}

// Errors a caller can tell apart.
var (
	// ErrToken: the Hub refused the token (unknown, expired or revoked).
	ErrToken = errors.New("the JupyterHub token was refused")
	// ErrScope: the token lacks a scope in Scopes.
	ErrScope = errors.New("the JupyterHub token lacks a scope")
	// ErrSpawn: the Hub could not start the server.
	ErrSpawn = errors.New("the JupyterHub could not start the server")
	// ErrNoToken: the URL is a Hub and freeact has no token for it.
	ErrNoToken = errors.New("no JupyterHub token")
)

// do sends a request with the token and decodes a JSON answer into out
// (when not nil). Errors name the request, never the token.
func (c *Client) do(ctx context.Context, method, what string, out any, elem ...string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base.JoinPath(elem...).String(), nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "token "+c.token)
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, c.clean(err))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	// A token the Hub does not know (revoked, expired) is 403 for its
	// own identity, which any valid token may read.
	if resp.StatusCode == http.StatusUnauthorized || (resp.StatusCode == http.StatusForbidden && elem[len(elem)-1] == "user" && method == http.MethodGet) {
		return resp.StatusCode, fmt.Errorf("%s: %w (HTTP %d): create a new one on %s and sign in again with `freeact remote login`", what, ErrToken, resp.StatusCode, c.TokenPage())
	}
	if resp.StatusCode >= 300 {
		return resp.StatusCode, fmt.Errorf("%s: HTTP %d: %s", what, resp.StatusCode, c.clean(errors.New(hubMessage(body))))
	}
	if out != nil && len(body) > 0 {
		if err := json.Unmarshal(body, out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s: the Hub's answer is not JSON: %w", what, err)
		}
	}
	return resp.StatusCode, nil
}

// clean takes the token (and URL secrets) out of err's text; it unwraps
// to err.
func (c *Client) clean(err error) error {
	err = redact.Err(err)
	if len(c.token) < 4 || !strings.Contains(err.Error(), c.token) {
		return err
	}
	return &scrubbed{err: err, text: strings.ReplaceAll(err.Error(), c.token, "***")}
}

// scrubbed is an error whose text had the token replaced.
type scrubbed struct {
	err  error
	text string
}

func (e *scrubbed) Error() string { return e.text }
func (e *scrubbed) Unwrap() error { return e.err }

// hubMessage is the "message" of a Hub error answer, or the body.
func hubMessage(body []byte) string {
	var m struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &m) == nil && m.Message != "" {
		return m.Message
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// Me is the token's owner with its servers and the token's scopes
// (GET hub/api/user).
func (c *Client) Me(ctx context.Context) (User, error) {
	var u User
	if _, err := c.do(ctx, http.MethodGet, "ask the JupyterHub who the token belongs to", &u, "hub", "api", "user"); err != nil {
		return User{}, err
	}
	if u.Kind != "" && u.Kind != "user" {
		return User{}, fmt.Errorf("the JupyterHub token belongs to the %s %q, which has no server of its own: create a token as a user on %s", u.Kind, u.Name, c.TokenPage())
	}
	return u, nil
}

// CheckScopes reports the first scope of Scopes that u's token lacks, with
// what to do.
func (c *Client) CheckScopes(u User) error {
	for _, need := range Scopes {
		if !hasScope(u.Scopes, need, u.Name) {
			return fmt.Errorf("%w: %s (freeact needs %s): create a token with these scopes on %s, or ask the Hub's administrator to allow them",
				ErrScope, need, strings.Join(Scopes, ", "), c.TokenPage())
		}
	}
	return nil
}

// hasScope says whether scopes grant need (a "name!user" scope) for user:
// the scope unfiltered, filtered to the user, or to one of the user's
// servers.
func hasScope(scopes []string, need, user string) bool {
	name, _, _ := strings.Cut(need, "!")
	for _, s := range scopes {
		n, filter, _ := strings.Cut(s, "!")
		if n != name {
			continue
		}
		if filter == "" || filter == "user" || filter == "user="+user || strings.HasPrefix(filter, "server="+user+"/") {
			return true
		}
	}
	return false
}

// Start makes sure the user's server called name ("" for the default
// server) runs: when it is stopped it is started, and the Hub's progress
// stream is followed until it is ready, each message passed to progress
// (which may be nil). It returns the single-user server's URL. Start
// waits as long as the Hub does (its spawner's start_timeout); ctx ends it
// earlier.
func (c *Client) Start(ctx context.Context, u User, name string, progress func(kernel.Progress)) (*url.URL, error) {
	if progress == nil {
		progress = func(kernel.Progress) {}
	}
	label := "your server"
	api := []string{"hub", "api", "users", u.Name, "server"}
	if name != "" {
		label = fmt.Sprintf("your server %q", name)
		api = []string{"hub", "api", "users", u.Name, "servers", name}
	}
	s, known := u.Servers[name]
	switch {
	case known && s.Ready:
		return c.serverURL(u.Name, name, s.URL), nil
	case known && s.Pending == "stop":
		return nil, fmt.Errorf("%s on the JupyterHub is stopping: try again in a moment", label)
	case !known || s.Pending == "":
		progress(kernel.Progress{Step: ProgressPrefix + "starting " + label, Fraction: 0})
		status, err := c.do(ctx, http.MethodPost, "start "+label+" on the JupyterHub", nil, api...)
		if err != nil {
			if status == http.StatusNotFound || status == http.StatusBadRequest {
				return nil, fmt.Errorf("%w\nfix: check that the user may have this server (for a named server the Hub needs c.JupyterHub.allow_named_servers = True)", err)
			}
			if status >= 500 {
				return nil, fmt.Errorf("%w: %v\nfix: see the Hub's log or ask its administrator", ErrSpawn, err)
			}
			if status == http.StatusForbidden {
				return nil, fmt.Errorf("%w\nfix: the token or user may not start servers; it needs %s", err, strings.Join(Scopes, ", "))
			}
			return nil, err
		}
		// 201 (started within the Hub's slow_spawn_timeout) or 202
		// (pending): the progress stream ends with "ready" either way.
	}
	return c.follow(ctx, u.Name, name, label, append(slices.Clone(api), "progress"), progress)
}

// serverURL is the single-user server's URL: the Hub's "url" for it, a path
// under the Hub's host, or /user/NAME/[SERVER/].
func (c *Client) serverURL(user, name, hubURL string) *url.URL {
	if hubURL != "" {
		if ref, err := url.Parse(hubURL); err == nil {
			u := c.base.ResolveReference(ref)
			if !strings.HasSuffix(u.Path, "/") {
				u.Path += "/"
			}
			return u
		}
	}
	if name == "" {
		return c.base.JoinPath("user", user).JoinPath("/")
	}
	return c.base.JoinPath("user", user, name).JoinPath("/")
}

// waitReady confirms with the Hub that the server is ready.
func (c *Client) waitReady(ctx context.Context, user, name, label string) error {
	var u User
	if _, err := c.do(ctx, http.MethodGet, "ask the JupyterHub about "+label, &u, "hub", "api", "users", user); err != nil {
		return err
	}
	if s, ok := u.Servers[name]; !ok || !s.Ready {
		return fmt.Errorf("%w: %s did not come up", ErrSpawn, label)
	}
	return nil
}

// event is one message of the Hub's progress stream.
type event struct {
	Progress float64 `json:"progress"`
	Message  string  `json:"message"`
	Ready    bool    `json:"ready"`
	Failed   bool    `json:"failed"`
	URL      string  `json:"url"`
}

// follow reads the progress stream (server-sent events) until the server
// is ready or its start failed.
func (c *Client) follow(ctx context.Context, user, name, label string, api []string, progress func(kernel.Progress)) (*url.URL, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base.JoinPath(api...).String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "token "+c.token)
	req.Header.Set("Accept", "text/event-stream")
	// The stream lasts as long as the spawn: no client timeout.
	hc := *c.http
	hc.Timeout = 0
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("follow the start of %s: %w", label, c.clean(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		return nil, fmt.Errorf("follow the start of %s: HTTP %d: %s", label, resp.StatusCode, c.clean(errors.New(hubMessage(body))))
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue
		}
		var ev event
		if json.Unmarshal([]byte(strings.TrimSpace(data)), &ev) != nil {
			continue
		}
		msg := c.clean(errors.New(spawnerText(ev.Message))).Error()
		switch {
		case ev.Failed:
			return nil, fmt.Errorf("%w: %s: %s\nfix: see the Hub's log or ask its administrator; try again with a new conversation once the cause is fixed", ErrSpawn, label, msg)
		case ev.Ready:
			progress(kernel.Progress{Step: ProgressPrefix + label + " is ready", Fraction: 1})
			return c.serverURL(user, name, ev.URL), nil
		default:
			progress(kernel.Progress{Step: ProgressPrefix + msg, Fraction: ev.Progress / 100})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("follow the start of %s: %w", label, c.clean(err))
	}
	// The stream ended without a verdict (the server was ready before it
	// was asked): ask the Hub.
	if err := c.waitReady(ctx, user, name, label); err != nil {
		return nil, err
	}
	return c.serverURL(user, name, ""), nil
}

var tags = regexp.MustCompile(`<[^>]*>`)

// spawnerText is a progress message as one line of plain text, at most
// 500 bytes: the spawner's text is the server's (the Hub may send HTML,
// a pod's event may hold line breaks or control characters).
func spawnerText(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return ' '
		}
		return r
	}, tags.ReplaceAllString(s, ""))
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 500 {
		s = strings.ToValidUTF8(s[:500], "") + "…"
	}
	return s
}
