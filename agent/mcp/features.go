package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"sync"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// The server features beyond tools, each through mcp-go's client:
// sampling (Options.Sample), roots (Options.Roots, RootsChanged),
// resources, prompts, completion, and notifications (Options.OnNotify).

// SampleRequest is a server's sampling/createMessage, in text.
type SampleRequest struct {
	Server       string
	SystemPrompt string
	Messages     []Message
	MaxTokens    int
}

// Message is one message of a sampling request or a prompt.
type Message struct {
	Role string // "user" or "assistant"
	Text string
}

// SampleResult is the answer to a SampleRequest.
type SampleResult struct {
	Text  string
	Model string
}

// Notification is a server's progress or log message, or a change of its
// tool list.
type Notification struct {
	Server string
	// Kind is "progress", "log" or "tools_changed".
	Kind string
	// Progress and Total (0: unknown) of a progress notification.
	Progress, Total float64
	// Message of a progress or log notification; Level of a log one.
	// Both are clipped where they enter (MaxNoteBytes, NoteBudget).
	Message string
	Level   string
	// Clipped counts the bytes left out of Message; the end of Message
	// says so too.
	Clipped int
}

// WithNotify returns a context whose Manager.Call passes the call's
// progress notifications, and the server's log messages while it runs, to
// f (besides Options.OnNotify). f runs on the connection's reader: it must
// not block.
func WithNotify(ctx context.Context, f func(Notification)) context.Context {
	return context.WithValue(ctx, notifyKey{}, f)
}

type notifyKey struct{}

func notifyOf(ctx context.Context) func(Notification) {
	f, _ := ctx.Value(notifyKey{}).(func(Notification))
	return f
}

// watchers are the calls in flight on a server that want its
// notifications, by progress token.
type watchers struct {
	mu sync.Mutex
	by map[string]func(Notification)
}

func (w *watchers) add(token string, f func(Notification)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.by == nil {
		w.by = map[string]func(Notification){}
	}
	w.by[token] = f
}

func (w *watchers) remove(token string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.by, token)
}

func (w *watchers) of(token string) func(Notification) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.by[token]
}

func (w *watchers) all() []func(Notification) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Collect(maps.Values(w.by))
}

// Resource is a resource a server offers.
type Resource struct {
	Server, URI, Name, Title, Description, MIMEType string
}

// ResourceTemplate is a parametrised resource (RFC 6570 URI template).
type ResourceTemplate struct {
	Server, URITemplate, Name, Title, Description, MIMEType string
	// Variables are the template's variable names, in order.
	Variables []string
}

// Prompt is a prompt a server offers.
type Prompt struct {
	Server, Name, Title, Description string
	Arguments                        []PromptArgument
}

// PromptArgument is an argument of a Prompt.
type PromptArgument struct {
	Name, Title, Description string
	Required                 bool
}

func textOf(c any) string {
	switch v := c.(type) {
	case mcp.TextContent:
		return v.Text
	case *mcp.TextContent:
		return v.Text
	case mcp.EmbeddedResource:
		if t, ok := v.Resource.(mcp.TextResourceContents); ok {
			return t.Text
		}
		return "[a binary resource left out]"
	case mcp.ImageContent:
		return fmt.Sprintf("[an image (%s) left out]", v.MIMEType)
	case map[string]any:
		if t, ok := v["text"].(string); ok {
			return t
		}
	}
	b, _ := json.Marshal(c)
	return string(b)
}

type sampler struct {
	server string
	f      func(context.Context, SampleRequest) (SampleResult, error)
	life   context.Context
	asking func() func()
	guard  guard
}

func (s sampler) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (_ *mcp.CreateMessageResult, err error) {
	defer s.guard.request(string(mcp.MethodSamplingCreateMessage), &err)
	ctx, cancel := whileAsking(ctx, s.life)
	defer cancel()
	defer s.asking()()
	r := SampleRequest{Server: s.server, SystemPrompt: req.SystemPrompt, MaxTokens: req.MaxTokens}
	for _, m := range req.Messages {
		r.Messages = append(r.Messages, Message{Role: string(m.Role), Text: textOf(m.Content)})
	}
	res, err := s.f(ctx, r)
	if err != nil {
		return nil, err
	}
	out := &mcp.CreateMessageResult{Model: res.Model, StopReason: "endTurn"}
	out.Role = mcp.RoleAssistant
	out.Content = mcp.NewTextContent(res.Text)
	return out, nil
}

// whileAsking is the context of a server's request that waits for the
// user: mcp-go gives a request over HTTP 30 s, too short for a person, so
// it ends with the Manager instead (the reply still goes to the server).
func whileAsking(ctx, life context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(life, cancel)
	return ctx, func() { stop(); cancel() }
}

type rooter struct {
	f     func() []string
	guard guard
}

func (r rooter) ListRoots(context.Context, mcp.ListRootsRequest) (_ *mcp.ListRootsResult, err error) {
	defer r.guard.request(string(mcp.MethodListRoots), &err)
	res := &mcp.ListRootsResult{Roots: []mcp.Root{}}
	for _, dir := range r.f() {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}
		res.Roots = append(res.Roots, mcp.Root{URI: u.String(), Name: filepath.Base(dir)})
	}
	return res, nil
}

// broadcast passes a note that names no call (a log message) to each call
// in flight on the server and to Options.OnNotify.
func (s *server) broadcast(note Notification) {
	s.notes.clip(&note)
	for _, w := range s.watchers.all() {
		w(note)
	}
	if f := s.m.opts.OnNotify; f != nil {
		f(note)
	}
}

// notifications passes a connection's notifications to Options.OnNotify,
// and re-lists the tools when they changed.
func (s *server) notifications(c *conn) func(mcp.JSONRPCNotification) {
	return func(n mcp.JSONRPCNotification) {
		defer guard{s}.notification(n.Method)
		f := s.m.opts.OnNotify
		p := n.Params.AdditionalFields
		num := func(k string) float64 { v, _ := p[k].(float64); return v }
		str := func(k string) string {
			switch v := p[k].(type) {
			case string:
				return v
			case nil:
				return ""
			default:
				b, _ := json.Marshal(v)
				return string(b)
			}
		}
		switch n.Method {
		case string(mcp.MethodNotificationProgress):
			note := Notification{Server: s.name, Kind: "progress", Progress: num("progress"), Total: num("total"), Message: str("message")}
			s.notes.clip(&note)
			if w := s.watchers.of(str("progressToken")); w != nil {
				w(note)
			}
			if f != nil {
				f(note)
			}
		case string(mcp.MethodNotificationMessage):
			s.broadcast(Notification{Server: s.name, Kind: "log", Level: str("level"), Message: str("data")})
		case string(mcp.MethodNotificationToolsListChanged):
			// Counted before the reader goes on, so that a call whose
			// answer follows the notification finds it in flight.
			s.m.relists.add()
			go func() {
				defer s.m.relists.done()
				s.relist(c)
			}()
			if f != nil {
				f(Notification{Server: s.name, Kind: "tools_changed"})
			}
		}
	}
}

// relist lists the tools of c again and reports them like a connection.
func (s *server) relist(c *conn) {
	ctx, cancel := context.WithTimeout(s.m.life, s.connectTimeout())
	defer cancel()
	tools, err := s.listTools(ctx, c)
	if err != nil {
		s.m.opts.Log.Warn("MCP server changed its tools, and listing them failed", "mcp_server", s.name, "err", err)
		return
	}
	s.mu.Lock()
	if s.cur != c {
		s.mu.Unlock()
		return
	}
	s.tools = tools
	s.mu.Unlock()
	if f := s.m.opts.OnConnect; f != nil {
		f(ctx, s.name, tools)
	}
}

// ToolsSettled waits until the tool lists that servers said changed
// (notifications/tools/list_changed) are listed again and OnConnect has
// run for them, or ctx ends. A call whose server changed its tools
// before answering is followed by its new tools once this returns.
func (m *Manager) ToolsSettled(ctx context.Context) error {
	return m.relists.wait(ctx)
}

// inFlight counts work under way and lets a caller wait until none is.
type inFlight struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0
}

func (f *inFlight) add() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		f.idle = make(chan struct{})
	}
	f.n++
}

func (f *inFlight) done() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n--; f.n == 0 {
		close(f.idle)
	}
}

func (f *inFlight) wait(ctx context.Context) error {
	f.mu.Lock()
	if f.n == 0 {
		f.mu.Unlock()
		return nil
	}
	idle := f.idle
	f.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// RootsChanged tells each connected server that the roots changed
// (notifications/roots/list_changed).
func (m *Manager) RootsChanged(ctx context.Context) error {
	var errs []error
	for _, name := range m.Servers() {
		s := m.servers[name]
		s.mu.Lock()
		c := s.cur
		s.mu.Unlock()
		if c != nil {
			if err := c.cli.RootListChanges(ctx); err != nil {
				errs = append(errs, &Error{Server: name, Err: fmt.Errorf("roots changed: %w", err)})
			}
		}
	}
	return errors.Join(errs...)
}

// Resources lists the resources of server.
func (m *Manager) Resources(ctx context.Context, server string) ([]Resource, error) {
	c, err := m.conn(ctx, server)
	if err != nil {
		return nil, err
	}
	res, err := c.cli.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		return nil, &Error{Server: server, Err: fmt.Errorf("list resources: %w", err)}
	}
	out := make([]Resource, 0, len(res.Resources))
	for _, r := range res.Resources {
		out = append(out, Resource{Server: server, URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType})
	}
	return out, nil
}

// ResourceTemplates lists the resource templates of server.
func (m *Manager) ResourceTemplates(ctx context.Context, server string) ([]ResourceTemplate, error) {
	c, err := m.conn(ctx, server)
	if err != nil {
		return nil, err
	}
	res, err := c.cli.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil {
		return nil, &Error{Server: server, Err: fmt.Errorf("list resource templates: %w", err)}
	}
	out := make([]ResourceTemplate, 0, len(res.ResourceTemplates))
	for _, r := range res.ResourceTemplates {
		t := ResourceTemplate{Server: server, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType}
		if r.URITemplate != nil && r.URITemplate.Template != nil {
			t.URITemplate, t.Variables = r.URITemplate.Raw(), r.URITemplate.Varnames()
		}
		out = append(out, t)
	}
	return out, nil
}

// ReadResource reads a resource of server: its text parts joined, binary
// parts described.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (string, error) {
	c, err := m.conn(ctx, server)
	if err != nil {
		return "", err
	}
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := c.cli.ReadResource(ctx, req)
	if err != nil {
		return "", &Error{Server: server, Err: fmt.Errorf("read resource %s: %w", uri, err)}
	}
	var text string
	for i, rc := range res.Contents {
		if i > 0 {
			text += "\n"
		}
		switch v := rc.(type) {
		case mcp.TextResourceContents:
			text += v.Text
		case mcp.BlobResourceContents:
			text += fmt.Sprintf("[binary resource %s (%s) left out]", v.URI, v.MIMEType)
		}
	}
	return text, nil
}

// Prompts lists the prompts of server.
func (m *Manager) Prompts(ctx context.Context, server string) ([]Prompt, error) {
	c, err := m.conn(ctx, server)
	if err != nil {
		return nil, err
	}
	res, err := c.cli.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		return nil, &Error{Server: server, Err: fmt.Errorf("list prompts: %w", err)}
	}
	out := make([]Prompt, 0, len(res.Prompts))
	for _, p := range res.Prompts {
		pr := Prompt{Server: server, Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
		}
		out = append(out, pr)
	}
	return out, nil
}

// GetPrompt gets prompt of server with its arguments, as messages.
func (m *Manager) GetPrompt(ctx context.Context, server, prompt string, args map[string]string) ([]Message, error) {
	c, err := m.conn(ctx, server)
	if err != nil {
		return nil, err
	}
	req := mcp.GetPromptRequest{}
	req.Params.Name, req.Params.Arguments = prompt, args
	res, err := c.cli.GetPrompt(ctx, req)
	if err != nil {
		return nil, &Error{Server: server, Err: fmt.Errorf("get prompt %q: %w", prompt, err)}
	}
	out := make([]Message, 0, len(res.Messages))
	for _, msg := range res.Messages {
		out = append(out, Message{Role: string(msg.Role), Text: textOf(msg.Content)})
	}
	return out, nil
}

// CompletePromptArgument asks server for values of a prompt's argument
// that start like value (completion/complete), given the other arguments
// already resolved.
func (m *Manager) CompletePromptArgument(ctx context.Context, server, prompt, arg, value string, resolved map[string]string) ([]string, error) {
	ref := mcp.PromptReference{Type: "ref/prompt", Name: prompt}
	return m.complete(ctx, server, ref, fmt.Sprintf("argument %q of prompt %q", arg, prompt), arg, value, resolved)
}

// CompleteResourceArgument asks server for values of a variable of a
// resource template that begin like value, given the other variables
// already resolved.
func (m *Manager) CompleteResourceArgument(ctx context.Context, server, uriTemplate, arg, value string, resolved map[string]string) ([]string, error) {
	ref := mcp.ResourceReference{Type: "ref/resource", URI: uriTemplate}
	return m.complete(ctx, server, ref, fmt.Sprintf("%q of resource template %q", arg, uriTemplate), arg, value, resolved)
}

// complete sends completion/complete for arg of ref (what names it in an
// error).
func (m *Manager) complete(ctx context.Context, server string, ref any, what, arg, value string, resolved map[string]string) ([]string, error) {
	c, err := m.conn(ctx, server)
	if err != nil {
		return nil, err
	}
	req := mcp.CompleteRequest{}
	req.Params.Ref = ref
	req.Params.Argument.Name, req.Params.Argument.Value = arg, value
	req.Params.Context.Arguments = others(resolved, arg)
	res, err := c.cli.Complete(ctx, req)
	if err != nil {
		return nil, &Error{Server: server, Err: fmt.Errorf("complete %s: %w", what, err)}
	}
	return res.Completion.Values, nil
}

// others is the context of a completion (MCP 2025-06-18): the arguments
// already filled in besides arg, so that a server can narrow one argument
// by another; nil when there are none.
func others(resolved map[string]string, arg string) map[string]string {
	var out map[string]string
	for k, v := range resolved {
		if k != arg && v != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// ExpandTemplate fills in a resource template (RFC 6570) with values.
func ExpandTemplate(uriTemplate string, values map[string]string) (string, error) {
	t, err := uritemplate.New(uriTemplate)
	if err != nil {
		return "", fmt.Errorf("resource template %q: %w", uriTemplate, err)
	}
	vals := uritemplate.Values{}
	for k, v := range values {
		vals.Set(k, uritemplate.String(v))
	}
	u, err := t.Expand(vals)
	if err != nil {
		return "", fmt.Errorf("fill in resource template %q: %w", uriTemplate, err)
	}
	return u, nil
}

func (m *Manager) conn(ctx context.Context, server string) (*conn, error) {
	s, err := m.server(server)
	if err != nil {
		return nil, err
	}
	return s.connected(ctx)
}

var _ client.SamplingHandler = sampler{}
var _ client.RootsHandler = rooter{}
