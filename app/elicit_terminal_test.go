package app

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/mcp"
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
			term := newTerminal(Streams{In: strings.NewReader(tc.input), Out: &out, Err: &out}, false, nil)
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
