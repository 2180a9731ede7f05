package desktop

import (
	"context"
	"errors"
	"fmt"
	"github.com/freeact/desktop/agent/mcpglue"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/mcp/oauth"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/internal/opener"
)

// EventMCP carries an MCPRequest: a sign-in or a form an MCP server asks
// for, and each change of its state.
const EventMCP = "mcp:request"

// States of an MCPRequest.
const (
	MCPWaiting   = "waiting"   // the card asks the user
	MCPDone      = "done"      // signed in, or the form was answered: the card goes
	MCPCancelled = "cancelled" // the user or the turn stopped it
	MCPFailed    = "failed"    // Message says why
	// MCPHidden: the card's conversation left the view; the card goes from
	// the window and comes back ("waiting") with its conversation.
	MCPHidden = "hidden"
)

// MCPRequest is the payload of EventMCP: what a card in the conversation
// shows. It never holds a token: a sign-in's URL is the authorization
// request (client id, PKCE challenge, state), not a credential.
type MCPRequest struct {
	ID string `json:"id"`
	// Kind is "signin" or "form".
	Kind    string `json:"kind"`
	Server  string `json:"server"`
	State   string `json:"state"`
	Message string `json:"message"`
	// URL is a sign-in's link, or the page of a URL-mode form: its host
	// in ASCII once internal/opener allowed it, else as the server sent it.
	URL string `json:"url,omitempty"`
	// Host is the host (and port) URL leads to, in ASCII (punycode for an
	// international name), shown apart from the URL; "" when the URL is
	// not one that is opened (URLProblem says why).
	Host string `json:"host,omitempty"`
	// URLProblem says why URL is not opened (not https, a user name before
	// the host...); "" when it is.
	URLProblem string `json:"url_problem,omitempty"`
	// Mode of a form: "form" (Fields) or "url".
	Mode   string              `json:"mode,omitempty"`
	Fields []adapter.FormField `json:"fields,omitempty"`
}

// mcpUser is the desktop's side of MCP sign-in and elicitation: it shows
// each as a card (EventMCP) and takes the answers the bindings get.
//
// A form belongs to the conversation whose tool call asked it
// (mcpPending.ws): it shows only while that conversation is in view, is
// answered only from there, counts as a request it waits on, and only
// its own turn's end cancels it. A sign-in is app-wide (ws nil): the
// tokens it gets serve every conversation, so its card shows over
// whichever conversation is in view until the browser step ends.
//
// Locks: d.viewMu before u.mu; u.mu before d.mu. A card's events are
// sent under d.viewMu, so none lands after its conversation left the
// view or before it came back.
type mcpUser struct {
	d *Desktop

	mu      sync.Mutex
	next    int
	pending map[string]*mcpPending
}

// mcpPending is a card waiting for the user.
type mcpPending struct {
	req MCPRequest
	// ws is the conversation that asked a form; nil for a sign-in (and a
	// form asked outside any conversation), shown whatever is in view.
	ws *workspace
	// signIn is the browser step's context (a sign-in): CancelSignIn
	// stops it through oauth.CancelSignIn.
	signIn context.Context
	// fields and reply belong to a form.
	fields []mcp.Field
	reply  chan mcp.Answer
}

func newMCPUser(d *Desktop) *mcpUser {
	return &mcpUser{d: d, pending: map[string]*mcpPending{}}
}

func (u *mcpUser) add(p *mcpPending) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.next++
	p.req.ID = "m" + strconv.Itoa(u.next)
	u.pending[p.req.ID] = p
	return p.req.ID
}

func (u *mcpUser) take(id string) (*mcpPending, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	p, ok := u.pending[id]
	delete(u.pending, id)
	return p, ok
}

// resend sends the cards still waiting for the user that the window
// shows (the sign-ins, the forms of the conversation in view) again, in
// the order they were shown (a reloaded page shows them again).
func (u *mcpUser) resend() {
	u.d.viewMu.Lock()
	defer u.d.viewMu.Unlock()
	u.d.mu.Lock()
	view := u.d.ws
	u.d.mu.Unlock()
	u.sendOpen(func(p *mcpPending) bool { return p.ws == nil || p.ws == view })
}

// sendOpen sends the cards waiting for the user that pick says yes to,
// in the order they were shown. They are sent under the lock that ends
// a card (take) so that no card's end is sent before its resent
// "waiting". d.viewMu is held.
func (u *mcpUser) sendOpen(pick func(*mcpPending) bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	open := make([]MCPRequest, 0, len(u.pending))
	for _, p := range u.pending {
		if pick(p) {
			open = append(open, p.req)
		}
	}
	sort.Slice(open, func(i, j int) bool { return cardNum(open[i].ID) < cardNum(open[j].ID) })
	for _, r := range open {
		u.d.send(EventMCP, r)
	}
}

// left takes the forms of ws, which left the view, from the window
// (MCPHidden); d.viewMu is held.
func (u *mcpUser) left(ws *workspace) {
	if ws == nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	var gone []MCPRequest
	for _, p := range u.pending {
		if p.ws == ws {
			gone = append(gone, MCPRequest{ID: p.req.ID, Kind: p.req.Kind, Server: p.req.Server, State: MCPHidden})
		}
	}
	sort.Slice(gone, func(i, j int) bool { return cardNum(gone[i].ID) < cardNum(gone[j].ID) })
	for _, r := range gone {
		u.d.send(EventMCP, r)
	}
}

// forms counts the forms of ws waiting for the user.
func (u *mcpUser) forms(ws *workspace) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	n := 0
	for _, p := range u.pending {
		if p.ws == ws && p.req.Kind == "form" {
			n++
		}
	}
	return n
}

// show sends r, an event of a card of ws, when the window shows the
// cards of ws (ws nil: always).
func (u *mcpUser) show(ws *workspace, r MCPRequest) {
	u.d.viewMu.Lock()
	defer u.d.viewMu.Unlock()
	if ws == nil || u.d.inView(ws) {
		u.d.send(EventMCP, r)
	}
}

// changed tells the session list (and, out of view, the desktop) that
// the forms ws waits on changed.
func (u *mcpUser) changed(ws *workspace) {
	if ws != nil {
		ws.changed()
	}
}

// cardNum is the number of a card id ("m3": 3).
func cardNum(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "m"))
	return n
}

// signingIn reports whether a sign-in to server is under way.
func (u *mcpUser) signingIn(server string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, p := range u.pending {
		if p.req.Kind == "signin" && p.req.Server == server {
			return true
		}
	}
	return false
}

// browser shows the "Sign in to NAME" card and opens the system browser
// (through internal/opener). The card stays until the browser step's
// context ends, which says how the sign-in ended.
func (u *mcpUser) browser(ctx context.Context, server, authURL string) error {
	p := &mcpPending{req: withLink(MCPRequest{Kind: "signin", Server: server, State: MCPWaiting, URL: authURL,
		Message: "Sign in to " + server + " in your browser. If it did not open, copy the link into one."}), signIn: ctx}
	id := u.add(p)
	// The card shows first: the browser may take a while to say whether it
	// opened the page.
	u.d.send(EventMCP, p.req)
	if _, err := (opener.Opener{}).OpenURL(ctx, authURL); err != nil && ctx.Err() == nil {
		u.mu.Lock()
		p.req.Message = "The browser was not opened (" + err.Error() + "): copy the link into one if you trust it."
		req := p.req
		u.mu.Unlock()
		u.d.send(EventMCP, req)
	}
	// Where the user signs in again: a Hub's card is the Kernel tab's.
	place := "Settings → MCP"
	if strings.HasPrefix(server, "JupyterHub ") {
		place = "Settings → Kernel"
	}
	context.AfterFunc(ctx, func() {
		u.take(id)
		end := MCPRequest{ID: id, Kind: "signin", Server: server}
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, oauth.ErrSignedIn):
			end.State, end.Message = MCPDone, "Signed in to "+server+"."
		case errors.Is(cause, oauth.ErrCancelled):
			end.State, end.Message = MCPCancelled, "Sign-in to "+server+" cancelled. Sign in from "+place+" when ready."
		case errors.Is(cause, context.DeadlineExceeded):
			end.State, end.Message = MCPFailed, "No answer from the browser in time: sign-in to "+server+" stopped. Sign in again from "+place+" when ready."
		case errors.Is(cause, context.Canceled):
			end.State, end.Message = MCPCancelled, "The sign-in to "+server+" stopped with the turn."
		default:
			end.State, end.Message = MCPFailed, cause.Error()
		}
		u.d.send(EventMCP, end)
	})
	return nil
}

// withLink checks r's URL as internal/opener does before it opens it:
// the URL in ASCII and its host apart, or why it is not opened.
func withLink(r MCPRequest) MCPRequest {
	l, err := opener.CheckURL(r.URL)
	if err != nil {
		r.URLProblem = err.Error()
		return r
	}
	r.URL, r.Host = l.URL, l.Host
	return r
}

// elicit shows a server's form (or URL request) as a card and waits for
// the answer; a context that ends first cancels it.
//
// ws is the conversation whose call asked it (nil: none).
func (u *mcpUser) elicit(ctx context.Context, ws *workspace, f mcp.Form) (mcp.Answer, error) {
	req := MCPRequest{Kind: "form", Server: f.Server, State: MCPWaiting, Message: f.Message, Mode: f.Mode,
		URL: f.URL, Fields: adapter.FormFields(f.Fields)}
	if f.Mode == "url" {
		req = withLink(req)
	}
	p := &mcpPending{req: req, ws: ws, fields: f.Fields, reply: make(chan mcp.Answer, 1)}
	// Added and shown under d.viewMu: a change of view hides it or
	// resends it, never misses it.
	u.d.viewMu.Lock()
	id := u.add(p)
	if ws == nil || u.d.inView(ws) {
		u.d.send(EventMCP, p.req)
	}
	u.d.viewMu.Unlock()
	u.changed(ws)
	select {
	case a := <-p.reply:
		return a, nil
	case <-ctx.Done():
		if _, ok := u.take(id); ok {
			u.show(ws, MCPRequest{ID: id, Kind: "form", Server: f.Server, State: MCPCancelled, Message: "The request ended before it was answered."})
			u.changed(ws)
		}
		return mcp.Answer{Action: "cancel"}, nil
	}
}

// formsFor is the mcp.Forms of the conversation ws: its forms are its own.
func (u *mcpUser) formsFor(ws *workspace) func(context.Context, mcp.Form) (mcp.Answer, error) {
	return func(ctx context.Context, f mcp.Form) (mcp.Answer, error) { return u.elicit(ctx, ws, f) }
}

// cancelForms answers the open forms of ws with cancel (its turn ended:
// no call of it waits for them any more). Another conversation's forms
// stay: its calls still wait for the user.
func (u *mcpUser) cancelForms(ws *workspace) {
	u.mu.Lock()
	var open []*mcpPending
	for id, p := range u.pending {
		if p.req.Kind == "form" && p.ws == ws {
			open = append(open, p)
			delete(u.pending, id)
		}
	}
	u.mu.Unlock()
	sort.Slice(open, func(i, j int) bool { return cardNum(open[i].req.ID) < cardNum(open[j].req.ID) })
	for _, p := range open {
		p.reply <- mcp.Answer{Action: "cancel"}
		u.show(ws, MCPRequest{ID: p.req.ID, Kind: "form", Server: p.req.Server, State: MCPCancelled, Message: "The turn ended before the form was answered."})
	}
	if len(open) > 0 {
		u.changed(ws)
	}
}

// AnswerForm answers the form card id: action "accept" (with values by
// field name; a URL-mode request opens its page now), "decline" or
// "cancel". Values that do not fit the form are refused, naming each field,
// and the card stays.
func (d *Desktop) AnswerForm(id, action string, values map[string]any) error {
	u := d.mcpUser()
	u.mu.Lock()
	p, ok := u.pending[id]
	u.mu.Unlock()
	if !ok || p.req.Kind != "form" {
		return fmt.Errorf("form %s is no longer open (the call ended or it was answered)", id)
	}
	if p.ws != nil && !d.inView(p.ws) {
		return fmt.Errorf("form %s belongs to another conversation: open that conversation to answer it", id)
	}
	a := mcp.Answer{Action: action}
	switch action {
	case "accept":
		if p.req.Mode == "url" {
			if _, err := (opener.Opener{}).OpenURL(d.host.context(), p.req.URL); err != nil {
				return err
			}
			break
		}
		typed, err := mcp.CheckAnswer(p.fields, values)
		if err != nil {
			return err
		}
		a.Values = typed
	case "decline", "cancel":
	default:
		return fmt.Errorf("unknown answer %q: want accept, decline or cancel", action)
	}
	// Taken under d.viewMu: the view cannot change between the check
	// and the answer.
	d.viewMu.Lock()
	if p.ws != nil && !d.inView(p.ws) {
		d.viewMu.Unlock()
		return fmt.Errorf("form %s belongs to another conversation: open that conversation to answer it", id)
	}
	if _, ok := u.take(id); !ok {
		d.viewMu.Unlock()
		return fmt.Errorf("form %s is no longer open (the call ended or it was answered)", id)
	}
	p.reply <- a
	d.send(EventMCP, MCPRequest{ID: id, Kind: "form", Server: p.req.Server, State: MCPDone})
	d.viewMu.Unlock()
	u.changed(p.ws)
	return nil
}

// CancelSignIn stops the sign-in of card id; the call that needed it
// fails, saying the sign-in was cancelled.
func (d *Desktop) CancelSignIn(id string) error {
	u := d.mcpUser()
	u.mu.Lock()
	p, ok := u.pending[id]
	u.mu.Unlock()
	if !ok || p.req.Kind != "signin" {
		return fmt.Errorf("sign-in %s is no longer under way", id)
	}
	oauth.CancelSignIn(p.signIn)
	return nil
}

// MCPServers lists the MCP servers of the running agent with their state
// (Settings → MCP), as `freeact mcp status` does.
func (d *Desktop) MCPServers() ([]mcpglue.MCPServerState, error) {
	a, err := d.runningAgent()
	if err != nil {
		return nil, err
	}
	out := a.MCPServers(d.mcpUser().signingIn)
	if out == nil {
		out = []mcpglue.MCPServerState{}
	}
	return out, nil
}

// MCPSignIn signs in to server (the card shows the browser step) and
// connects it; it returns when the sign-in ended.
func (d *Desktop) MCPSignIn(server string) error {
	a, err := d.runningAgent()
	if err != nil {
		return err
	}
	defer d.refreshStatus()
	return a.MCPLogin(d.host.context(), server)
}

// MCPConnect tries again to connect a server that did not start (or is
// not connected): on success its tools are offered from the next model
// call and its failure banner goes; on failure the banner says why now.
func (d *Desktop) MCPConnect(server string) error {
	a, err := d.runningAgent()
	if err != nil {
		return err
	}
	defer d.refreshStatus()
	return a.MCPConnect(d.host.context(), server)
}

// refreshStatus sends the kernel status again, for what it derives from
// the agent (the MCP servers that failed) to show as it is now.
func (d *Desktop) refreshStatus() {
	ws, err := d.current()
	if err != nil {
		return
	}
	ws.updateStatus(func(last KernelStatus) (KernelStatus, bool) { return last, last.State == KernelReady })
}

// MCPSignOut forgets the tokens of server (its registration is kept).
func (d *Desktop) MCPSignOut(server string) error {
	a, err := d.runningAgent()
	if err != nil {
		return err
	}
	return a.MCPLogout(server)
}

func (d *Desktop) runningAgent() (*agent.Agent, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	ws.mu.Lock()
	a := ws.agent
	ws.mu.Unlock()
	if a == nil {
		return nil, errors.New("the agent has not started: MCP servers show once the kernel is ready")
	}
	return a, nil
}

func (d *Desktop) mcpUser() *mcpUser {
	d.mcpOnce.Do(func() { d.mcp = newMCPUser(d) })
	return d.mcp
}
