package webview

import (
	"testing"
	"time"
)

func TestDecideAllowsOnlyTheAppsOrigin(t *testing.T) {
	const app = "wails://wails"
	for _, c := range []struct {
		name    string
		origin  string
		uri     string
		kind    Kind
		gesture bool
		want    Verdict
	}{
		{"the app's page", app, "wails://wails/", Navigate, false, Verdict{Allow: true}},
		{"a page of the app's, with a fragment", app, "wails://wails/index.html#x", Navigate, true, Verdict{Allow: true}},
		{"the scheme and host in capitals", app, "WAILS://WAILS/", Navigate, false, Verdict{Allow: true}},
		{"a link the user clicked", app, "https://evil.example/p", Navigate, true, Verdict{Open: true}},
		{"a page that moves itself", app, "https://evil.example/p", Navigate, false, Verdict{}},
		{"plain http clicked", app, "http://127.0.0.1:8000/", Navigate, true, Verdict{Open: true}},
		{"another host under the wails scheme", app, "wails://evil/", Navigate, true, Verdict{}},
		{"a host that starts like the app's", app, "wails://wails.evil.example/", Navigate, false, Verdict{}},
		{"a file", app, "file:///etc/passwd", Navigate, true, Verdict{}},
		{"about:blank", app, "about:blank", Navigate, false, Verdict{}},
		{"a data page", app, "data:text/html,<script>x</script>", Navigate, true, Verdict{}},
		{"javascript", app, "javascript:alert(1)", Navigate, true, Verdict{}},
		{"a new window of the app's own", app, "wails://wails/", NewWindow, true, Verdict{}},
		{"a new window to the web, clicked", app, "https://a.example/", NewWindow, true, Verdict{Open: true}},
		{"a new window the page opened by itself", app, "https://a.example/", NewWindow, false, Verdict{}},
		{"the dev server's page", "http://localhost:34115", "http://localhost:34115/src/x", Navigate, false, Verdict{Allow: true}},
		{"the dev server on another port", "http://localhost:34115", "http://localhost:5173/", Navigate, false, Verdict{}},
		{"no origin known", "", "wails://wails/", Navigate, false, Verdict{}},
		{"an empty address", app, "", Navigate, true, Verdict{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Decide(c.origin, c.uri, c.kind, c.gesture); got != c.want {
				t.Errorf("Decide(%q, %q, %v, %v) = %+v, want %+v", c.origin, c.uri, c.kind, c.gesture, got, c.want)
			}
		})
	}
}

func TestOriginOfAddressesWithoutOne(t *testing.T) {
	for uri, want := range map[string]string{
		"wails://wails/index.html":   "wails://wails",
		"http://Localhost:34115/x?y": "http://localhost:34115",
		"about:blank":                "",
		"blob:wails://wails/1234":    "",
		"data:,x":                    "",
		"":                           "",
		"/relative":                  "",
	} {
		if got := Origin(uri); got != want {
			t.Errorf("Origin(%q) = %q, want %q", uri, got, want)
		}
	}
}

func TestWatcherReloadsUnlessItDiesAgainWithinAMinute(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	w := NewWatcher(func() time.Time { return now })
	steps := []struct {
		after time.Duration
		want  Restart
	}{
		{0, Reload},                // the first death
		{2 * time.Minute, Reload},  // long after: reload again
		{59 * time.Second, GiveUp}, // again within a minute
		{61 * time.Second, Reload}, // a minute after the last death
		{Again - time.Nanosecond, GiveUp},
	}
	for i, s := range steps {
		now = now.Add(s.after)
		if got := w.Died(); got != s.want {
			t.Fatalf("death %d (%v after the last): %v, want %v", i+1, s.after, got, s.want)
		}
	}
}
