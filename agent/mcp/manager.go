package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp/oauth"
)

// Default limits of Options.
const (
	DefaultCallTimeout = 5 * time.Minute
	// DefaultConnectTimeout bounds starting a server and listing its
	// tools; a server's "connect_timeout" (seconds) replaces it.
	DefaultConnectTimeout = 60 * time.Second
)

// Options adjusts a Manager. Zero values mean the defaults.
type Options struct {
	// Log receives the servers' stderr (one record a line) and connection
	// events. Default: discard.
	Log *slog.Logger
	// CallTimeout bounds one tool call (a server's read_timeout replaces
	// it); a call that takes longer fails and
	// the server is restarted on the next call.
	CallTimeout time.Duration
	// ConnectTimeout bounds starting a server and listing its tools, for
	// servers without their own connect_timeout.
	ConnectTimeout time.Duration
	// ProbeTimeout bounds the wait for a server's answer to the
	// server/discover probe (protocol 2026-07-28) before the initialize
	// handshake is tried instead; 0 means mcp-go's default (5 s).
	ProbeTimeout time.Duration
	// ClientName is the name the client gives in the MCP handshake.
	ClientName string
	// OnConnect, if set, is called after each (re)connection with the
	// server's tools (excluded tools left out), e.g. to regenerate code
	// when they changed. It runs before the call that connected.
	OnConnect func(ctx context.Context, server string, tools []Tool)
	// Elicit, if set, asks the user to fill in a server's form or open a
	// page (elicitation); the servers are told the client can. A call
	// waits for the answer.
	Elicit func(ctx context.Context, f Form) (Answer, error)
	// Sample, if set, answers a server's sampling/createMessage (the
	// caller asks the user and runs its model); servers are told the
	// client can sample.
	Sample func(ctx context.Context, r SampleRequest) (SampleResult, error)
	// Roots, if set, gives the folders the servers may work in (the
	// workspace); RootsChanged tells them when it changes.
	Roots func() []string
	// OnNotify, if set, receives the servers' progress and log
	// notifications and changes of their tool lists (the tools are listed
	// again and OnConnect called).
	OnNotify func(n Notification)
	// SignIn configures the sign-in to OAuth-protected HTTP servers.
	SignIn SignInOptions
}

// SignInOptions configures the OAuth sign-in (package oauth) of HTTP
// servers. Zero values mean the defaults.
type SignInOptions struct {
	// Store keeps registrations and tokens; nil means the system keyring
	// when it answers, else 0600 files in Dir.
	Store config.Keyring
	// Dir holds the token files (without a keyring) and the refresh
	// locks; "" means $XDG_STATE_HOME/freeact/mcp-oauth.
	Dir string
	// Browser shows the user the authorization URL; nil opens the system
	// browser through internal/opener. The desktop shows a sign-in card,
	// the terminal prints the link.
	Browser func(ctx context.Context, server, authURL string) error
	// Timeout bounds the browser step (0: five minutes).
	Timeout time.Duration
}

// Tool is a tool of a server as listed by it.
type Tool struct {
	Server      string
	Name        string
	Title       string
	Description string
	// InputSchema is the JSON schema of the arguments (an object schema).
	InputSchema json.RawMessage
	// OutputSchema is the JSON schema of the structured result, or nil when
	// the tool declares none.
	OutputSchema json.RawMessage
	// Hints are the tool's annotations, or nil when it gives none.
	Hints *Hints
}

// Hints are a tool's annotations (readOnlyHint, destructiveHint,
// idempotentHint, openWorldHint and title; nil: not given). They come
// from the server and are shown on an approval; nothing is allowed
// because of them.
type Hints struct {
	Title       string `json:"title,omitempty"`
	ReadOnly    *bool  `json:"read_only,omitempty"`
	Destructive *bool  `json:"destructive,omitempty"`
	Idempotent  *bool  `json:"idempotent,omitempty"`
	OpenWorld   *bool  `json:"open_world,omitempty"`
}

// IsDestructive reports whether the server marks the tool destructive:
// destructiveHint true and readOnlyHint not true. Only an explicit
// destructiveHint counts (the spec's default of true for a tool that
// says nothing would mark every tool); nil hints are not destructive.
// The approval of such a tool offers no lasting rule
// (agent.ApprovalRequest.NoAlways).
func (h *Hints) IsDestructive() bool {
	return h != nil && h.Destructive != nil && *h.Destructive && (h.ReadOnly == nil || !*h.ReadOnly)
}

// hintsOf reads a tool's annotations; nil when none is given.
func hintsOf(a mcp.ToolAnnotation) *Hints {
	h := Hints{Title: a.Title, ReadOnly: a.ReadOnlyHint, Destructive: a.DestructiveHint,
		Idempotent: a.IdempotentHint, OpenWorld: a.OpenWorldHint}
	if h == (Hints{}) {
		return nil
	}
	return &h
}

// Image is an image a tool returned.
type Image struct {
	MIMEType string
	Data     []byte
}

// Result is what a tool call returned.
type Result struct {
	// Text joins the text parts of the result; other parts (resources,
	// audio) are described in a line of their own.
	Text string
	// Structured is the structured content, or nil.
	Structured json.RawMessage
	Images     []Image
	// IsError is set when the tool reported a failure; Text says what.
	IsError bool
}

// ModelText is the result as the model reads it: the text, or the
// structured content as JSON when the tool returned no text.
func (r *Result) ModelText() string {
	if strings.TrimSpace(r.Text) == "" && len(r.Structured) > 0 {
		return string(r.Structured)
	}
	return r.Text
}

// Error is a failed call or connection: Server and Tool say where, Err why.
type Error struct {
	Server string
	Tool   string // "" for a connection failure
	Err    error
}

func (e *Error) Error() string {
	// A failed sign-in reads the same wherever it came up (the handshake,
	// a call, Login): the step and why, not the transport's layers.
	var si *oauth.SignInError
	if errors.As(e.Err, &si) {
		return fmt.Sprintf("MCP server %q: sign-in failed (%s): %v. Sign in again from Settings → MCP or with `freeact mcp login %s`", e.Server, si.Step, si.Err, e.Server)
	}
	var need *oauth.NeedSignInError
	if errors.As(e.Err, &need) {
		return fmt.Sprintf("MCP server %q: %v", e.Server, need)
	}
	if e.Tool == "" {
		return fmt.Sprintf("MCP server %q is not available: %v", e.Server, e.Err)
	}
	return fmt.Sprintf("MCP server %q: tool %q failed: %v", e.Server, e.Tool, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrUnknownServer is returned (wrapped) for a server name the Manager does
// not have.
var ErrUnknownServer = errors.New("no such MCP server")

// ErrClosed is returned (wrapped) after Close.
var ErrClosed = errors.New("MCP connections are closed")

// Manager holds the connections to a set of servers. Its methods are safe for
// concurrent use.
type Manager struct {
	opts    Options
	servers map[string]*server
	life    context.Context // ends at Close
	calls   atomic.Int64    // numbers the progress tokens of calls
	stop    context.CancelFunc
	// relists are the tool lists being fetched again after a server said
	// they changed.
	relists inFlight
}

// NewManager prepares connections to servers (name -> configuration, with
// ${VAR} already expanded). Nothing starts until Connect or a call.
func NewManager(servers map[string]config.Server, opts Options) *Manager {
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = DefaultConnectTimeout
	}
	if opts.ClientName == "" {
		opts.ClientName = "freeact"
	}
	life, stop := context.WithCancel(context.Background())
	m := &Manager{opts: opts, servers: map[string]*server{}, life: life, stop: stop}
	storeOnce := sync.OnceValue(func() config.Keyring {
		if opts.SignIn.Store != nil {
			return opts.SignIn.Store
		}
		return oauth.NewStore(config.SecretService(), filepath.Join(signInDir(opts.SignIn), "tokens"))
	})
	for name, cfg := range servers {
		s := &server{name: name, cfg: cfg, m: m}
		asking := s.clocks.asking
		if cfg.URL != "" && (cfg.OAuth != nil || !hasAuthorization(cfg.Headers)) {
			// A server whose headers carry the credentials (a pasted
			// token) is not signed in to.
			s.auth = oauth.New(oauth.Options{
				Server: name, URL: cfg.URL, Config: cfg.OAuth,
				Store:   lazyStore{get: storeOnce},
				LockDir: filepath.Join(signInDir(opts.SignIn), "locks"),
				Browser: s.browser, SignInTimeout: opts.SignIn.Timeout, Asking: asking,
				ClientName: opts.ClientName, Log: opts.Log,
			})
		}
		m.servers[name] = s
	}
	return m
}

// Servers returns the configured server names, sorted.
func (m *Manager) Servers() []string { return slices.Sorted(maps.Keys(m.servers)) }

// Connect starts every server in parallel and lists its tools. A server
// that fails is reported in the joined error (each naming its server) and
// tried again on its next use; the others stay connected. It opens no
// browser: a server that needs a sign-in fails saying so (see
// WithoutBrowser).
func (m *Manager) Connect(ctx context.Context) error {
	ctx = WithoutBrowser(ctx)
	errs := make([]error, len(m.servers))
	var wg sync.WaitGroup
	for i, name := range m.Servers() {
		wg.Go(func() {
			_, errs[i] = m.servers[name].connected(ctx)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Tools returns the tools of every connected server (excluded tools left
// out), sorted by server and name. Servers that are not connected have none.
func (m *Manager) Tools() []Tool {
	var out []Tool
	for _, name := range m.Servers() {
		s := m.servers[name]
		s.mu.Lock()
		out = append(out, s.tools...)
		s.mu.Unlock()
	}
	return out
}

// ServerTools connects server when needed and returns its tools (excluded
// tools left out).
func (m *Manager) ServerTools(ctx context.Context, server string) ([]Tool, error) {
	s, err := m.server(server)
	if err != nil {
		return nil, err
	}
	if _, err := s.connected(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tools), nil
}

// ProtocolVersion returns the MCP protocol version agreed with a connected
// server, or "" when it is not connected.
func (m *Manager) ProtocolVersion(server string) string {
	s, ok := m.servers[server]
	if !ok {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil {
		return ""
	}
	return s.cur.protocol
}

func (m *Manager) server(name string) (*server, error) {
	s, ok := m.servers[name]
	if !ok {
		return nil, &Error{Server: name, Err: fmt.Errorf("%w (configured: %s)", ErrUnknownServer, strings.Join(m.Servers(), ", "))}
	}
	return s, nil
}

// Call runs tool of server with JSON object arguments (nil means {}),
// connecting the server first when needed. A tool that reports a failure
// gives a Result with IsError; a server that cannot be reached, fails the
// request or takes longer than the call timeout gives an *Error, and such a
// server is restarted on the next call.
func (m *Manager) Call(ctx context.Context, server, tool string, args json.RawMessage) (*Result, error) {
	s, err := m.server(server)
	if err != nil {
		return nil, err
	}
	if slices.Contains(s.cfg.ExcludedTools, tool) {
		return nil, &Error{Server: server, Tool: tool, Err: errors.New("the tool is listed in excluded_tools")}
	}
	arguments := map[string]any{} // servers refuse null arguments
	if len(bytes.TrimSpace(args)) > 0 && string(bytes.TrimSpace(args)) != "null" {
		if err := json.Unmarshal(args, &arguments); err != nil {
			return nil, &Error{Server: server, Tool: tool, Err: fmt.Errorf("arguments are not a JSON object: %w", err)}
		}
	}
	c, err := s.connected(ctx)
	if err != nil {
		return nil, err
	}
	callTimeout := s.callTimeout()
	// The call's clock stops while the server waits for the user.
	cctx, clock := newCallClock(ctx, callTimeout, context.DeadlineExceeded)
	defer clock.stop()
	s.clocks.add(clock)
	defer s.clocks.remove(clock)
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = arguments
	// The progress token names the call: for its notifications, and for
	// its cancellation over HTTP.
	token := fmt.Sprintf("%s/%d", tool, s.m.calls.Add(1))
	watch := notifyOf(ctx)
	if s.m.opts.OnNotify != nil || watch != nil || c.ids != nil {
		req.Params.Meta = &mcp.Meta{ProgressToken: mcp.ProgressToken(token)}
	}
	if watch != nil {
		s.watchers.add(token, watch)
		defer s.watchers.remove(token)
	}
	if c.ids != nil {
		defer c.ids.take(token)
	}
	res, err := c.cli.CallTool(cctx, req)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			cause := fmt.Errorf("cancelled: %w", context.Cause(ctx))
			if c.ids != nil && !mcp.IsModernProtocol(c.protocol) {
				// An HTTP server at a handshake version is told, and the
				// connection stays.
				err := cancelHTTP(ctx, c, token, context.Cause(ctx).Error())
				if err == nil {
					return nil, &Error{Server: server, Tool: tool, Err: cause}
				}
				s.m.opts.Log.Warn("MCP server not told that a call was cancelled", "mcp_server", s.name, "err", err)
			}
			// The caller gave up (cancel): the server may still be busy with
			// the call, so start afresh next time.
			s.drop(c, "the call was cancelled")
			return nil, &Error{Server: server, Tool: tool, Err: cause}
		case cctx.Err() != nil:
			s.drop(c, "the call timed out")
			return nil, &Error{Server: server, Tool: tool, Err: fmt.Errorf("no answer within %s: %w", callTimeout, context.DeadlineExceeded)}
		}
		var terr *transport.Error
		if errors.As(err, &terr) {
			s.drop(c, "the server stopped answering")
			return nil, &Error{Server: server, Tool: tool, Err: fmt.Errorf("%v (the server is not running; it will be restarted on the next call)", err)}
		}
		return nil, &Error{Server: server, Tool: tool, Err: err}
	}
	return convert(res), nil
}

// Close ends every connection and the processes of stdio servers. The
// Manager cannot be used afterwards.
func (m *Manager) Close() error {
	m.stop()
	var wg sync.WaitGroup
	errs := make([]error, len(m.servers))
	for i, name := range m.Servers() {
		wg.Go(func() { errs[i] = m.servers[name].close() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// convert turns a call result into a Result.
func convert(res *mcp.CallToolResult) *Result {
	r := &Result{IsError: res.IsError}
	var texts []string
	for _, c := range res.Content {
		switch v := c.(type) {
		case mcp.TextContent:
			texts = append(texts, v.Text)
		case mcp.ImageContent:
			data, err := base64.StdEncoding.DecodeString(v.Data)
			if err != nil {
				texts = append(texts, fmt.Sprintf("[an image (%s) that could not be decoded: %v]", v.MIMEType, err))
				continue
			}
			r.Images = append(r.Images, Image{MIMEType: v.MIMEType, Data: data})
		case mcp.AudioContent:
			texts = append(texts, fmt.Sprintf("[audio (%s) left out]", v.MIMEType))
		case mcp.EmbeddedResource:
			if t, ok := v.Resource.(mcp.TextResourceContents); ok {
				texts = append(texts, t.Text)
			} else {
				texts = append(texts, "[a binary resource left out]")
			}
		case mcp.ResourceLink:
			texts = append(texts, fmt.Sprintf("[resource %s: %s]", v.Name, v.URI))
		}
	}
	r.Text = strings.Join(texts, "\n")
	switch {
	case len(res.RawStructuredContent) > 0 && string(res.RawStructuredContent) != "null":
		r.Structured = slices.Clone(res.RawStructuredContent)
	case res.StructuredContent != nil:
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			r.Structured = b
		}
	}
	return r
}

// server is one configured server and its current connection.
type server struct {
	name string
	cfg  config.Server
	m    *Manager

	mu     sync.Mutex
	cur    *conn
	tools  []Tool
	closed bool
	// starting serialises connection attempts without holding mu.
	starting sync.Mutex
	// auth signs in to an HTTP server; it outlives connections.
	auth *oauth.Client
	// watchers are the calls that want their notifications (WithNotify).
	watchers watchers
	// clocks are the timeouts of the calls in flight, stopped while the
	// user answers the server (a form, sampling, a sign-in).
	clocks clocks
	// deadline is the connect timeout of the start under way, paused
	// while the user signs in (see browser).
	deadline *deadline
	// notes clips the server's notifications (see clip.go).
	notes noteClipper
}

// conn is one running connection.
type conn struct {
	cli  *client.Client
	proc *process // nil for HTTP
	ids  *callIDs // the ids of calls posted; nil for stdio
	// protocol is the MCP protocol version agreed with the server.
	protocol string
	// schemas are the tools' schemas as the server sent them.
	schemas *toolSchemas
	once    sync.Once
	err     error
}

// connected returns the live connection, starting one when there is none.
func (s *server) connected(ctx context.Context) (*conn, error) {
	s.mu.Lock()
	c, closed := s.cur, s.closed
	s.mu.Unlock()
	if closed {
		return nil, &Error{Server: s.name, Err: ErrClosed}
	}
	if c != nil {
		return c, nil
	}
	s.starting.Lock()
	defer s.starting.Unlock()
	s.mu.Lock()
	c = s.cur
	s.mu.Unlock()
	if c != nil {
		return c, nil
	}
	c, tools, err := s.start(ctx)
	if err != nil {
		return nil, &Error{Server: s.name, Err: err}
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		go c.close(s.m.opts.Log)
		return nil, &Error{Server: s.name, Err: ErrClosed}
	}
	s.cur, s.tools = c, tools
	s.mu.Unlock()
	if f := s.m.opts.OnConnect; f != nil {
		f(ctx, s.name, slices.Clone(tools))
	}
	return c, nil
}

// callTimeout is the server's read_timeout (pydantic-ai's name, from the
// Python freeact's files), or the manager's call timeout.
func (s *server) callTimeout() time.Duration {
	if t := s.cfg.ReadTimeout; t != nil && *t > 0 {
		return time.Duration(*t * float64(time.Second))
	}
	return s.m.opts.CallTimeout
}

// start launches the server, shakes hands and lists its tools.
func (s *server) start(ctx context.Context) (*conn, []Tool, error) {
	ctx, dl := s.connectDeadline(ctx)
	defer dl.stop()
	defer context.AfterFunc(s.m.life, dl.stop)()
	log := s.m.opts.Log.With("mcp_server", s.name)
	c := &conn{schemas: newToolSchemas()}
	var tr transport.Interface
	switch {
	case s.cfg.URL != "":
		h, ids, err := s.httpTransport(log, false, c.schemas)
		if err != nil {
			return nil, nil, err
		}
		tr, c.ids = h, ids
	case s.cfg.Command != "":
		p, err := startProcess(s.cfg, log)
		if err != nil {
			return nil, nil, fmt.Errorf("start %s: %w", s.describe(), err)
		}
		c.proc = p
		tr = transport.NewIO(io.TeeReader(p.reader(), c.schemas), p.stdin, nil)
	default:
		return nil, nil, errors.New(`the server has neither "command" nor "url"`)
	}
	c.cli = client.NewClient(tr, s.clientOptions()...)
	// Every handler of the server's messages is in place before the
	// first byte is read: a server may send them during the handshake.
	c.cli.OnNotification(s.notifications(c))
	// The transport keeps the context given to Start for requests from the
	// server: give it the Manager's lifetime.
	if err := c.cli.Start(s.m.life); err != nil {
		c.close(log)
		return nil, nil, fmt.Errorf("start %s: %w", s.describe(), err)
	}
	version, err := negotiate(ctx, c.cli, s.m.opts.ClientName, s.m.opts.ProbeTimeout)
	if err != nil {
		err = s.startFailure(ctx, c, err)
		c.close(log)
		return nil, nil, fmt.Errorf("initialize %s: %w", s.describe(), err)
	}
	if s.cfg.URL != "" && !mcp.IsModernProtocol(version) {
		// Before 2026-07-28 the server's own requests (elicitation) and
		// notifications outside a call come on the GET stream, which
		// mcp-go opens only on a transport that never speaks the modern
		// protocol: connect again on one at the version just agreed.
		if c, version, err = s.reconnectListening(ctx, c, version, log); err != nil {
			return nil, nil, fmt.Errorf("initialize %s: %w", s.describe(), err)
		}
	}
	c.protocol = version
	tools, err := s.listTools(ctx, c)
	if err != nil {
		var terr toolError
		if !errors.As(err, &terr) {
			err = s.startFailure(ctx, c, err)
		}
		c.close(log)
		return nil, nil, fmt.Errorf("list the tools of %s: %w", s.describe(), err)
	}
	log.Info("MCP server connected", "tools", len(tools), "protocol", version)
	return c, tools, nil
}

// hasAuthorization reports whether headers set Authorization.
func hasAuthorization(headers map[string]string) bool {
	for k := range headers {
		if strings.EqualFold(k, "Authorization") {
			return true
		}
	}
	return false
}

// toolError is a tool whose schemas cannot be read.
type toolError struct{ error }

// listTools lists the tools of c, sorted, excluded ones left out.
func (s *server) listTools(ctx context.Context, c *conn) ([]Tool, error) {
	list, err := c.cli.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	tools := make([]Tool, 0, len(list.Tools))
	for _, t := range list.Tools {
		if slices.Contains(s.cfg.ExcludedTools, t.Name) {
			continue
		}
		tool, err := toTool(s.name, t)
		if err != nil {
			return nil, toolError{fmt.Errorf("tool %q: %w", t.Name, err)}
		}
		// Nested objects' properties in the server's order.
		in, out := c.schemas.schemas(t.Name)
		tool.InputSchema = reorderLike(tool.InputSchema, in)
		if tool.OutputSchema != nil {
			tool.OutputSchema = reorderLike(tool.OutputSchema, out)
		}
		tools = append(tools, tool)
	}
	slices.SortFunc(tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return tools, nil
}

// httpTransport is the streamable HTTP transport of the server, signed in
// through s.auth; listening opens the GET stream (legacy protocols only).
func (s *server) httpTransport(log *slog.Logger, listening bool, seen *toolSchemas) (*transport.StreamableHTTP, *callIDs, error) {
	var base http.RoundTripper
	if s.auth != nil {
		base = s.auth.Transport(nil)
	}
	ids := newCallIDs(base)
	ids.seen = seen
	opts := []transport.StreamableHTTPCOption{transport.WithHTTPHeaders(s.cfg.Headers), transport.WithHTTPLogger(log),
		transport.WithHTTPBasicClient(&http.Client{Transport: ids, CheckRedirect: s.sameOrigin})}
	if listening {
		opts = append(opts, transport.WithContinuousListening()) //lint:ignore SA1019 the GET stream of protocols before 2026-07-28
	}
	h, err := transport.NewStreamableHTTP(s.cfg.URL, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("connect to %s: %w", s.cfg.URL, err)
	}
	return h, ids, nil
}

// sameOrigin refuses a redirect of an MCP request to another origin
// (scheme, host or port): the request carries the session, and the
// server's token is not the other origin's to see.
func (s *server) sameOrigin(req *http.Request, via []*http.Request) error {
	if u, err := url.Parse(s.cfg.URL); err != nil || !strings.EqualFold(req.URL.Scheme, u.Scheme) || !strings.EqualFold(req.URL.Host, u.Host) {
		return fmt.Errorf("the MCP server %s redirected to another origin %s; refused", s.cfg.URL, req.URL.Scheme+"://"+req.URL.Host)
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// reconnectListening replaces the legacy HTTP connection c with one that
// also listens on the GET stream, shaking hands at version.
func (s *server) reconnectListening(ctx context.Context, c *conn, version string, log *slog.Logger) (*conn, string, error) {
	c.close(log)
	h, ids, err := s.httpTransport(log, true, c.schemas)
	if err != nil {
		return nil, "", err
	}
	n := &conn{cli: client.NewClient(h, s.clientOptions()...), ids: ids, schemas: c.schemas}
	n.cli.OnNotification(s.notifications(n))
	if err := n.cli.Start(s.m.life); err != nil {
		return nil, "", err
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: s.m.opts.ClientName, Version: "1"}
	init.Params.ProtocolVersion = version
	res, err := n.cli.Initialize(ctx, init)
	if err != nil {
		n.close(log)
		return nil, "", err
	}
	return n, res.ProtocolVersion, nil
}

func (s *server) clientOptions() []client.ClientOption {
	var copts []client.ClientOption
	if s.m.opts.Elicit != nil {
		copts = append(copts, client.WithElicitationHandler(elicitor{server: s.name, ask: s.m.opts.Elicit, life: s.m.life, asking: s.clocks.asking, tell: s.broadcast, guard: guard{s}}))
	}
	if s.m.opts.Sample != nil {
		copts = append(copts, client.WithSamplingHandler(sampler{server: s.name, f: s.m.opts.Sample, life: s.m.life, asking: s.clocks.asking, guard: guard{s}}))
	}
	if s.m.opts.Roots != nil {
		copts = append(copts, client.WithRootsHandler(rooter{f: s.m.opts.Roots, guard: guard{s}}))
	}
	return copts
}

func (s *server) describe() string {
	if s.cfg.URL != "" {
		return s.cfg.URL
	}
	return strings.Join(append([]string{s.cfg.Command}, s.cfg.Args...), " ")
}

// drop forgets c (when it is still current) and closes it in the
// background; the next call starts a new connection.
func (s *server) drop(c *conn, why string) {
	s.mu.Lock()
	if s.cur == c {
		s.cur = nil
	}
	s.mu.Unlock()
	log := s.m.opts.Log.With("mcp_server", s.name)
	log.Warn("MCP server connection dropped; it restarts on the next call", "reason", why)
	go c.close(log)
}

func (s *server) close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	// A connection being started is kept by connected only while open;
	// waiting for the start here lets Close end it too.
	s.starting.Lock()
	s.mu.Lock()
	c := s.cur
	s.cur = nil
	s.mu.Unlock()
	s.starting.Unlock()
	if c == nil {
		return nil
	}
	if err := c.close(s.m.opts.Log.With("mcp_server", s.name)); err != nil {
		return fmt.Errorf("close MCP server %q: %w", s.name, err)
	}
	return nil
}

// close ends the connection: for stdio, the client closes stdin and waits;
// the process group gets SIGTERM after a second and SIGKILL after three,
// and SIGKILL once more at the end for anything it left behind.
func (c *conn) close(log *slog.Logger) error {
	c.once.Do(func() {
		done := make(chan error, 1)
		go func() {
			err := c.cli.Close() // for stdio: closes the server's stdin
			if c.proc != nil {
				<-c.proc.exited
				err = c.proc.err
			}
			done <- err
		}()
		pid := 0
		if c.proc != nil {
			pid = c.proc.cmd.Process.Pid
		}
		wait := func(d time.Duration) (error, bool) {
			select {
			case err := <-done:
				return err, true
			case <-time.After(d):
				return nil, false
			}
		}
		err, ok := wait(time.Second)
		if !ok && pid > 0 {
			signalGroup(pid, sigTerm)
			err, ok = wait(2 * time.Second)
			if !ok {
				signalGroup(pid, sigKill)
				err, ok = wait(2 * time.Second)
			}
		} else if !ok {
			err, ok = wait(2 * time.Second)
		}
		if !ok {
			err = errors.New("the connection did not close within 5 s")
		}
		if pid > 0 {
			signalGroup(pid, sigKill)
		}
		var exit *exec.ExitError
		if errors.As(err, &exit) || (err != nil && strings.Contains(err.Error(), "signal: ")) {
			// A server ended by a signal or with a status after its input
			// closed: that is how it stops, not a failure to close.
			log.Debug("MCP server exited", "status", err)
			err = nil
		}
		if c.proc != nil {
			c.proc.stdout.Close() // a child of the server may hold the write end
		}
		c.err = err
	})
	return c.err
}

// toTool reads the schemas of t.
func toTool(server string, t mcp.Tool) (Tool, error) {
	raw, err := json.Marshal(t)
	if err != nil {
		return Tool{}, fmt.Errorf("encode: %w", err)
	}
	var v struct {
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return Tool{}, fmt.Errorf("decode schemas: %w", err)
	}
	tool := Tool{Server: server, Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: v.InputSchema,
		Hints: hintsOf(t.Annotations)}
	if len(tool.InputSchema) == 0 || string(tool.InputSchema) == "null" {
		tool.InputSchema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	if len(v.OutputSchema) > 0 && string(v.OutputSchema) != "null" && string(v.OutputSchema) != "{}" {
		tool.OutputSchema = v.OutputSchema
	}
	return tool, nil
}

// newLineLogger returns a writer of a server's stderr to the log, one
// record a line.
func newLineLogger(log *slog.Logger) *lines {
	return &lines{max: 64 << 10, emit: func(l []byte) {
		if line := strings.TrimRight(string(l), "\r\n"); line != "" {
			log.Info("MCP server stderr", "line", line)
		}
	}}
}

// lines passes each line written to it (with its newline) to emit, and
// a line longer than max, before its newline came, as it is.
type lines struct {
	max  int
	emit func(line []byte) // called with mu held

	mu  sync.Mutex
	buf []byte // a line without its newline yet
}

func (w *lines) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.emit(w.buf[:i+1])
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > w.max {
		w.emit(w.buf)
		w.buf = w.buf[:0]
	}
	return len(p), nil
}
