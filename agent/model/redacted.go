package model

import (
	"errors"
	"net/url"

	"github.com/freeact/desktop/internal/redact"
)

// redactedError is a backend's error with the secrets of the URLs in it
// (a base URL's userinfo, a key= in its query) replaced by ***. It
// unwraps to the backend's error, so errors.Is and errors.As still find
// the cause.
type redactedError struct {
	err  error
	text string
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.err }

// redacted is how every error of a backend leaves the Model: its text
// through the one redactor, and each *url.Error in its chain with the URL
// redacted in place, so that a caller that digs the URL out gets no
// secret either.
func redacted(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*redactedError); ok {
		return err
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if ue, ok := e.(*url.Error); ok {
			ue.URL = redact.URL(ue.URL)
		}
	}
	return &redactedError{err: err, text: redact.Text(err.Error())}
}
