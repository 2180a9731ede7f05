// Package webview guards the desktop window's web view, which Wails v2
// leaves open: it installs no navigation policy and hands every script
// message to the bound Go methods whatever page sent it. Attach (Linux)
// wraps the WebKitWebView Wails made: the window only ever shows the
// app's own origin (WebKit's decide-policy), script messages reach Wails
// only while the page shown is the app's, and a web process that dies is
// noticed (Watcher). The decisions are plain functions here so they are
// tested without a window.
package webview

import (
	"net/url"
	"strings"
)

// Kind is the kind of navigation WebKit asks about.
type Kind int

const (
	// Navigate is a navigation of the main frame or of a subframe: a link
	// followed, a form sent, location changed, a reload.
	Navigate Kind = iota
	// NewWindow asks for a new window (target=_blank, window.open).
	NewWindow
)

// Verdict is the answer to one navigation.
type Verdict struct {
	// Allow lets the web view go there.
	Allow bool
	// Open hands the address to the user's browser instead: a link the
	// user clicked to a web page (http or https).
	Open bool
}

// Origin returns the origin (scheme://host[:port], lower case) of uri,
// "" when uri has none (about:, data:, blob:, a malformed address).
func Origin(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme == "" || u.Host == "" || u.Opaque != "" {
		return ""
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

// Same reports whether uri is of origin (as Origin gives it); an empty
// origin matches nothing.
func Same(origin, uri string) bool {
	return origin != "" && Origin(uri) == origin
}

// Decide answers a navigation of kind to uri made by the page of origin:
// only navigations within the app's own origin are allowed, new windows
// never; a refused address the user clicked goes to the browser when it
// is a web page.
func Decide(origin, uri string, kind Kind, userGesture bool) Verdict {
	if kind == Navigate && Same(origin, uri) {
		return Verdict{Allow: true}
	}
	return Verdict{Open: userGesture && webPage(uri)}
}

// webPage reports whether uri is an http or https address with a host.
func webPage(uri string) bool {
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" {
		return false
	}
	s := strings.ToLower(u.Scheme)
	return s == "http" || s == "https"
}
