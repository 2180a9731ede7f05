package terminal

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/app/internal/fronttest"
)

func TestTerminalForm(t *testing.T) {
	fields := []mcp.Field{
		{Name: "age", Type: "integer", Default: 30.0},
		{Name: "colour", Type: "string", Options: []mcp.Option{{Value: "r", Title: "Red"}, {Value: "g", Title: "Green"}}},
		{Name: "name", Type: "string", Required: true},
		{Name: "tags", Type: "array", Multi: true, Options: []mcp.Option{{Value: "a", Title: "A"}, {Value: "b", Title: "B"}, {Value: "c", Title: "C"}}},
		{Name: "verified", Type: "boolean"},
	}
	tests := []struct {
		name, input string
		want        mcp.Answer
	}{
		{"accept", "y\nforty\n\n2\n\nAda\n1,3\nmaybe\ny\n", mcp.Answer{Action: "accept", Values: map[string]any{
			"colour": "g", "name": "Ada", "tags": []any{"a", "c"}, "verified": true}}},
		{"decline", "n\n", mcp.Answer{Action: "decline"}},
		{"cancel", "c\n", mcp.Answer{Action: "cancel"}},
		{"end of input", "y\n", mcp.Answer{Action: "cancel"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			term := newTerminal(adapter.Streams{In: strings.NewReader(tc.input), Out: &out, Err: &out}, false, nil)
			forms := &terminalForms{t: term}
			got, err := forms.ask(context.Background(), mcp.Form{Server: "s", Message: "Who are you?\x1b[2J", Mode: "form", Fields: fields})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("answer %#v, want %#v\n%s", got, tc.want, out.String())
			}
			if strings.Contains(out.String(), "\x1b[2J") {
				t.Error("the server's escape sequence reached the terminal")
			}
			if tc.name == "accept" && (!strings.Contains(out.String(), `"forty" is not a whole number`) || !strings.Contains(out.String(), "name is required")) {
				t.Errorf("bad answers were not explained:\n%s", out.String())
			}
		})
	}
	unbound := &terminalForms{}
	if a, _ := unbound.ask(context.Background(), mcp.Form{Mode: "form"}); a.Action != "decline" {
		t.Errorf("a form before the terminal exists: %v, want decline", a)
	}
}

// A URL-mode request in the terminal shows the host apart, in punycode,
// and opens only a URL the opener allows: file:// and option-like text
// are never handed to the browser, only declined.
func TestTerminalURLForm(t *testing.T) {
	opens := fronttest.RecordOpens(t, 0)
	tests := []struct {
		name, url, input string
		action           string
		shows            []string
		opened           string
	}{
		{name: "look-alike host", url: "https://ехаmple.com/verify", input: "y\n", action: "accept",
			shows: []string{"a page on xn--mple-43d3a6i.com", "https://xn--mple-43d3a6i.com/verify"}, opened: "https://xn--mple-43d3a6i.com/verify"},
		{name: "file", url: "file:///etc/passwd", input: "y\n", action: "decline", shows: []string{"file: links are not opened", "Decline it?"}},
		{name: "option", url: "--renderer-cmd-prefix=/usr/bin/xterm", input: "\n", action: "decline", shows: []string{"begins with \"-\""}},
		{name: "cancel a refused one", url: "javascript:alert(1)", input: "c\n", action: "cancel"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(opens())
			var out bytes.Buffer
			term := newTerminal(adapter.Streams{In: strings.NewReader(tc.input), Out: &out, Err: &out}, false, nil)
			got, err := (&terminalForms{t: term}).ask(context.Background(), mcp.Form{Server: "s", Message: "Verify.", Mode: "url", URL: tc.url})
			if err != nil {
				t.Fatal(err)
			}
			if got.Action != tc.action {
				t.Errorf("answer %+v, want %s\n%s", got, tc.action, out.String())
			}
			for _, s := range tc.shows {
				if !strings.Contains(out.String(), s) {
					t.Errorf("the terminal does not say %q:\n%s", s, out.String())
				}
			}
			now := opens()[before:]
			if tc.opened == "" && len(now) != 0 || tc.opened != "" && (len(now) != 1 || now[0][1] != tc.opened) {
				t.Errorf("the browser got %q, want %q", now, tc.opened)
			}
		})
	}
}
