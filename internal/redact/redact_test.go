package redact

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://host:8888/":                            "https://host:8888/",
		"https://host/lab?token=abc123":                 "https://host/lab?token=***",
		"http://user:pa55@host:8888/x?token=t&b=1#frag": "http://***@host:8888/x?token=***&b=***#***",
		"https://api.example/v1?key=sk-secret":          "https://api.example/v1?key=***",
		"https://u@h":                                   "https://***@h",
		"https://h/p@q":                                 "https://h/p@q",
		"not a url ?token=x":                            "not a url ?token=***",
	} {
		if got := URL(raw); got != want {
			t.Errorf("URL(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestText(t *testing.T) {
	msg := `connect to Jupyter server http://me:hunter2@10.0.0.1:8888/?token=0123abcd: Post "https://api.x/v1/chat?key=sk-live-9": dial tcp: refused`
	got := Text(msg)
	for _, secret := range []string{"hunter2", "0123abcd", "sk-live-9", "me:"} {
		if strings.Contains(got, secret) {
			t.Errorf("Text left %q in %q", secret, got)
		}
	}
	if !strings.Contains(got, "http://***@10.0.0.1:8888/?token=***") || !strings.Contains(got, `"https://api.x/v1/chat?key=***"`) || !strings.HasSuffix(got, ": dial tcp: refused") {
		t.Errorf("Text = %q", got)
	}
}

func FuzzText(f *testing.F) {
	f.Add("x https://u:p@h/?token=s y")
	f.Fuzz(func(t *testing.T, s string) {
		got := Text(s)
		if again := Text(got); again != got {
			t.Errorf("Text is not stable: %q -> %q -> %q", s, got, again)
		}
		// A secret in a URL's query never survives.
		if strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" || s == "" {
			return
		}
		if u := Text("https://h/?token=" + s); strings.Contains(u, "token="+s) {
			t.Errorf("Text kept the token %q: %q", s, u)
		}
	})
}

// An error leaves with its URLs' secrets replaced, in its text and in the
// URL of a *url.Error in its chain, and still unwraps to its cause.
func TestErr(t *testing.T) {
	cause := &url.Error{Op: "Post", URL: "http://me:pw@h:1/v1?key=k", Err: io.ErrUnexpectedEOF}
	err := Err(fmt.Errorf("openai:x: %w", cause))
	if got, want := err.Error(), `openai:x: Post "http://***@h:1/v1?key=***": unexpected EOF`; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	var ue *url.Error
	if !errors.As(err, &ue) || ue.URL != "http://***@h:1/v1?key=***" || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("the cause %v does not unwrap redacted", ue)
	}
	if Err(err) != err || Err(nil) != nil {
		t.Error("Err of a redacted error or nil is not itself")
	}
}
