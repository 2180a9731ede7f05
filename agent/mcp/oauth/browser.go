package oauth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// callback is the loopback listener that receives the browser's redirect.
type callback struct {
	redirectURI string
	srv         *http.Server
	got         chan url.Values

	mu    sync.Mutex
	state string // of the authorization request under way
}

// expect sets the state of the authorization request: only a redirect
// that carries it is taken.
func (cb *callback) expect(state string) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	cb.state = state
}

func (cb *callback) ours(q url.Values) bool {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	return cb.state != "" && subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(cb.state)) == 1
}

// listen opens the listener on 127.0.0.1: on the port of prev (a redirect
// URI registered earlier) when it is free, else on an ephemeral port.
func listen(prev string) (*callback, error) {
	addr := "127.0.0.1:0"
	if u, err := url.Parse(prev); err == nil && u.Hostname() == "127.0.0.1" && u.Port() != "" {
		addr = "127.0.0.1:" + u.Port()
	}
	l, err := net.Listen("tcp", addr)
	if err != nil && addr != "127.0.0.1:0" {
		l, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return nil, err
	}
	return serveCallback(l, fmt.Sprintf("http://%s/callback", l.Addr()), "/callback"), nil
}

// serveCallback serves the redirect to path on l; redirectURI is what the
// authorization request names.
func serveCallback(l net.Listener, redirectURI, path string) *callback {
	cb := &callback{
		redirectURI: redirectURI,
		got:         make(chan url.Values, 1),
	}
	mux := http.NewServeMux()
	mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if !cb.ours(q) {
			// Not the answer to our request (a page that sent the
			// browser here, a stale tab): ignored, the sign-in goes on.
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, "<!doctype html><title>freeact</title><p>This is not the answer to the sign-in freeact is waiting for; it was ignored.</p>")
			return
		}
		select {
		case cb.got <- q:
		default:
		}
		msg := "Signed in. You can close this tab and return to freeact."
		if e := q.Get("error"); e != "" {
			msg = "Sign-in failed: " + e + ". You can close this tab."
		}
		fmt.Fprintf(w, "<!doctype html><title>freeact</title><p>%s</p>", html.EscapeString(msg))
	})
	cb.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go cb.srv.Serve(l)
	return cb
}

// wait returns the code of the redirect whose state matches (see
// expect); a redirect with another state never comes here.
func (cb *callback) wait(ctx context.Context) (string, error) {
	for {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case q := <-cb.got:
			if e := q.Get("error"); e != "" {
				if d := q.Get("error_description"); d != "" {
					e += ": " + d
				}
				return "", fmt.Errorf("the authorization server refused: %s", e)
			}
			if q.Get("code") == "" {
				return "", errors.New("the browser's answer has no code")
			}
			return q.Get("code"), nil
		}
	}
}

func (cb *callback) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	cb.srv.Shutdown(ctx)
}
