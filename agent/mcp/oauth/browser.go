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
	"time"
)

// callback is the loopback listener that receives the browser's redirect.
type callback struct {
	redirectURI string
	srv         *http.Server
	got         chan url.Values
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
	cb := &callback{
		redirectURI: fmt.Sprintf("http://%s/callback", l.Addr()),
		got:         make(chan url.Values, 1),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/callback", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		select {
		case cb.got <- q:
		default:
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		msg := "Signed in. You can close this tab and return to freeact."
		if e := q.Get("error"); e != "" {
			msg = "Sign-in failed: " + e + ". You can close this tab."
		}
		fmt.Fprintf(w, "<!doctype html><title>freeact</title><p>%s</p>", html.EscapeString(msg))
	})
	cb.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go cb.srv.Serve(l)
	return cb, nil
}

// wait returns the code of the redirect whose state matches; a redirect
// with another state is refused (it is not the answer to our request).
func (cb *callback) wait(ctx context.Context, state string) (string, error) {
	for {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case q := <-cb.got:
			if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
				return "", errors.New("the browser's answer carries a state that is not ours: refusing it (sign in again)")
			}
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
