//go:build linux && cgo && (desktop || dev)

package webview_test

import (
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/freeact/desktop/app/internal/webview"
	"github.com/freeact/desktop/app/internal/webview/webviewtest"
)

// The app's page of the test: it posts calls with the capability,
// without it and with a wrong one, a runtime message, and tries to move
// the window and to frame another origin; "last" comes after all.
const appPage = `<!doctype html><body><script>
const post = (m) => window.webkit.messageHandlers.external.postMessage(m);
const call = (id, capability) => post('C' + JSON.stringify({name: 'desktop.Desktop.RunCell', args: ['x'], callbackID: id, capability}));
call('with', 'cap-1');
call('without');
call('wrong', 'cap-2');
post('EE{"name":"an event"}');
const f = document.createElement('iframe');
f.src = 'wails://other/frame';
document.body.append(f);
location.href = 'wails://other/page';
setTimeout(() => call('last', 'cap-1'), 0);
</script>`

const otherPage = `<!doctype html><script>
window.webkit.messageHandlers.external.postMessage('C' + JSON.stringify({name: 'desktop.Desktop.RunCell', args: [], callbackID: 'other', capability: 'cap-1'}));
</script>`

var window *webviewtest.Window

// GTK runs on the main thread; the tests in another goroutine.
func init() { runtime.LockOSThread() }

func TestMain(m *testing.M) {
	w, err := webviewtest.Open(map[string]string{
		"wails://wails/":      appPage,
		"wails://other/page":  otherPage,
		"wails://other/frame": otherPage,
	})
	if err != nil {
		os.Exit(m.Run()) // the window's tests skip
	}
	window = w
	go func() { os.Exit(m.Run()) }()
	webviewtest.Main()
}

func TestGuardOnAWebKitWebView(t *testing.T) {
	if window == nil {
		t.Skip("no display for a web view: run under xvfb-run")
	}
	refused := make(chan string, 10)
	refusedCalls := make(chan string, 10)
	terminated := make(chan string, 1)
	_, err := webview.Attach(webview.Config{
		Origin:      "wails://wails",
		Capability:  "cap-1",
		Refused:     func(uri string, open bool) { refused <- uri },
		RefusedCall: func(id string, err error) { refusedCalls <- id },
		Terminated:  func(reason string) { terminated <- reason },
	})
	if err != nil {
		t.Fatal(err)
	}
	window.Load("wails://wails/")

	timeout := time.After(60 * time.Second)
	var got []string
	for !slices.ContainsFunc(got, func(m string) bool {
		return m == `C{"name":"desktop.Desktop.RunCell","args":["x"],"callbackID":"last","capability":"cap-1"}`
	}) {
		select {
		case m := <-window.Received():
			got = append(got, m)
		case <-timeout:
			t.Fatalf("the page's last call never arrived; got %q (served %q)", got, window.Served())
		}
	}
	want := []string{
		`C{"name":"desktop.Desktop.RunCell","args":["x"],"callbackID":"with","capability":"cap-1"}`,
		`EE{"name":"an event"}`,
		`C{"name":"desktop.Desktop.RunCell","args":["x"],"callbackID":"last","capability":"cap-1"}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("the messages that reached Wails' handler:\n%q\nwant\n%q", got, want)
	}
	var ids []string
	for len(ids) < 2 {
		select {
		case id := <-refusedCalls:
			ids = append(ids, id)
		case <-timeout:
			t.Fatalf("refused calls %q, want without and wrong", ids)
		}
	}
	if slices.Sort(ids); !slices.Equal(ids, []string{"without", "wrong"}) {
		t.Errorf("refused calls %q, want without and wrong", ids)
	}
	var uris []string
	for len(uris) < 2 {
		select {
		case u := <-refused:
			uris = append(uris, u)
		case <-timeout:
			t.Fatalf("refused navigations %q, want the frame and the page of wails://other", uris)
		}
	}
	if slices.Sort(uris); !slices.Equal(uris, []string{"wails://other/frame", "wails://other/page"}) {
		t.Errorf("refused navigations %q", uris)
	}
	for _, u := range window.Served() {
		if u != "wails://wails/" {
			t.Errorf("the web view loaded %s", u)
		}
	}

	window.Terminate()
	select {
	case r := <-terminated:
		if r != "was ended by the app" {
			t.Errorf("termination reason %q", r)
		}
	case <-timeout:
		t.Fatal("the web process's end was not reported")
	}
}
