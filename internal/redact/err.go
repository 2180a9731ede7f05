package redact

import (
	"errors"
	"net/url"
)

// redacted is an error whose text had the secrets of its URLs replaced.
type redacted struct {
	err  error
	text string
}

func (e *redacted) Error() string { return e.text }
func (e *redacted) Unwrap() error { return e.err }

// Err is how an error that may name a URL with secrets (a base URL given
// by the user, with a password or a key= in it) leaves a client: its text
// through Text, and each *url.Error in its chain with its URL redacted in
// place, so that one who digs the URL out gets no secret either. It
// unwraps to err, so errors.Is and errors.As still find the cause. nil
// stays nil.
func Err(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*redacted); ok {
		return err
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if ue, ok := e.(*url.Error); ok {
			ue.URL = URL(ue.URL)
		}
	}
	return &redacted{err: err, text: Text(err.Error())}
}
