package desktop

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/app/internal/webview"
	"github.com/freeact/desktop/internal/redact"
)

// appOrigin is the origin Wails serves the embedded frontend from on
// Linux; a dev build serves it from its dev server (the origin of the
// address the window was given).
const appOrigin = "wails://wails"

// windowGuard is the state of the guarded web view: the wrapper, and
// what a death of the web process calls for.
type windowGuard struct {
	mu     sync.Mutex
	view   guardedView // nil: no window guarded
	watch  *webview.Watcher
	quit   func() // closes the window
	resend bool   // the page is being reloaded: send it the conversation
}

// guardedView is what a dead web process needs of the wrapped web view
// (*webview.Guard; tests replace it).
type guardedView interface {
	Reload()
	Say(title, message string)
}

// guardWindow wraps the window's web view (app/internal/webview): the
// window shows only the app's own page, calls reach the bindings only
// from it, and a web process that dies is noticed. A window that cannot
// be guarded is closed: it would answer any page's calls.
func (d *Desktop) guardWindow(wctx context.Context) {
	origin := appOrigin
	if DevBuild {
		origin = ""
	}
	g, err := webview.Attach(webview.Config{
		Origin: origin,
		Refused: func(uri string, open bool) {
			go d.refusedNavigation(uri, open)
		},
		Capability: d.capability,
		Dropped: func(uri string) {
			d.log.Warn("dropped a call from a page that is not the app's", "page", redact.URL(uri))
		},
		RefusedCall: func(callbackID string, err error) {
			d.log.Warn("refused a call of the window's page", "err", err)
			go answerRefused(wctx, callbackID, err)
		},
		Terminated: func(reason string) {
			go d.webProcessDied(reason)
		},
	})
	if err != nil {
		d.log.Error("the window's page cannot be guarded; closing", "err", err)
		runtime.Quit(wctx)
		return
	}
	d.guard.mu.Lock()
	d.guard.view = g
	d.guard.watch = webview.NewWatcher(nil)
	d.guard.quit = func() { runtime.Quit(wctx) }
	d.guard.mu.Unlock()
}

// answerRefused rejects the promise of a call the guard refused, with
// the reason, through Wails' runtime (the callback the call waits on).
func answerRefused(wctx context.Context, callbackID string, err error) {
	if callbackID == "" {
		return
	}
	msg, _ := json.Marshal(map[string]string{"callbackid": callbackID, "error": err.Error()})
	arg, _ := json.Marshal(string(msg))
	runtime.WindowExecJS(wctx, "window.wails && window.wails.Callback("+string(arg)+");")
}

// capabilityPage puts the window's capability into the app's index.html
// (webview.InjectCapability): only the app's own page holds it, and
// every call must carry it (webview.CheckCall).
func capabilityPage(capability string) assetserver.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || (r.URL.Path != "/" && r.URL.Path != "/index.html") {
				next.ServeHTTP(w, r)
				return
			}
			rec := &pageRecorder{header: http.Header{}, code: http.StatusOK}
			next.ServeHTTP(rec, r)
			body := rec.body.Bytes()
			if rec.code == http.StatusOK {
				page, err := webview.InjectCapability(body, capability)
				if err != nil {
					http.Error(w, err.Error(), http.StatusInternalServerError)
					return
				}
				body = page
				rec.header.Del("Content-Length")
				rec.header.Set("Cache-Control", "no-store")
			}
			for k, v := range rec.header {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.code)
			_, _ = w.Write(body)
		})
	}
}

// pageRecorder keeps a response to change it.
type pageRecorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (p *pageRecorder) Header() http.Header         { return p.header }
func (p *pageRecorder) Write(b []byte) (int, error) { return p.body.Write(b) }
func (p *pageRecorder) WriteHeader(code int)        { p.code = code }

// refusedNavigation hands a web page the user clicked to the browser;
// anything else the window was asked to show is only logged.
func (d *Desktop) refusedNavigation(uri string, open bool) {
	if !open {
		d.log.Warn("the window refused to leave the app's page", "to", redact.URL(uri))
		return
	}
	// The one opener checks what it hands on (https, http to this
	// computer) and says why it refused anything else.
	if err := d.OpenLink(uri); err != nil {
		d.log.Warn("a link the user clicked was not opened", "err", err)
	}
}

// webProcessDied reloads the app's page after its web process died, or,
// when it died again within a minute, shuts the agent down (its session
// lock released, its kernel stopped), says so and quits.
func (d *Desktop) webProcessDied(reason string) {
	d.guard.mu.Lock()
	g, w, quit := d.guard.view, d.guard.watch, d.guard.quit
	d.guard.mu.Unlock()
	if g == nil {
		return
	}
	switch w.Died() {
	case webview.Reload:
		d.log.Warn("the window's web process "+reason+"; reloading the page", "reason", reason)
		d.guard.mu.Lock()
		d.guard.resend = true
		d.guard.mu.Unlock()
		g.Reload()
	case webview.GiveUp:
		d.log.Error("the window's web process "+reason+" again within a minute; stopping", "reason", reason)
		d.shutdown()
		g.Say(adapter.AppName, "The window's page stopped twice within a minute (its web process "+reason+"). "+
			"The conversation is saved and its kernel stopped. Quit, and open freeact again to carry on.")
		quit()
	}
}

// domReady sends a page reloaded after its web process died the
// conversation it showed and every question still open (ws.resend).
func (d *Desktop) domReady() {
	d.guard.mu.Lock()
	resend := d.guard.resend
	d.guard.resend = false
	d.guard.mu.Unlock()
	if !resend {
		return
	}
	if ws, err := d.current(); err == nil {
		ws.resend()
	}
}

// resend sends a new page what the old one showed: the agent's history
// (or the session file's while the agent starts), then everything still
// open. What the window can answer lives in one of three places, and
// each is sent whole:
//   - ws.pending: the agent's requests (approvals, input, the budget
//     question, the MCP wait bar), in the order they came;
//   - the MCP cards (mcpUser.pending): sign-ins and the forms of the
//     conversation in view still waiting;
//   - the kernel status: the replay offer, the interrupted revert, the
//     MCP servers that failed.
//
// A new kind of question registers in one of them, and comes back with
// a reloaded page without a case of its own here.
func (ws *workspace) resend() {
	ws.mu.Lock()
	a, sid := ws.agent, ws.session
	pending := make([]string, 0, len(ws.pending))
	for id := range ws.pending {
		pending = append(pending, id)
	}
	reqs := make(map[string]any, len(ws.pending))
	for id, r := range ws.pending {
		reqs[id] = r
	}
	ws.mu.Unlock()
	if a == nil {
		ws.show(sid)
	} else {
		ws.push(queued{raw: resetEvent})
		for _, ev := range agentHistory(a, ws.cfg) {
			ws.push(queued{raw: ev})
		}
	}
	sort.Slice(pending, func(i, j int) bool { return reqNum(pending[i]) < reqNum(pending[j]) })
	for _, id := range pending {
		if ev, ok := reqs[id].(agent.Event); ok {
			ws.push(queued{ev: ev, requestID: id})
		}
	}
	ws.d.mcpUser().resend()
	// The status as it is now (the replay offer is the agent's).
	ws.updateStatus(func(last KernelStatus) (KernelStatus, bool) { return last, true })
}

// reqNum is the number of a request id ("r12": 12).
func reqNum(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "r"))
	return n
}
