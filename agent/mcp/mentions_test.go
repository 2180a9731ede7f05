package mcp_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
)

func TestParseSlashPrompt(t *testing.T) {
	tests := []struct {
		in      string
		want    mcp.SlashPrompt
		ok, bad bool
	}{
		{"/everything:args-prompt city=Paris state=\"New York\"", mcp.SlashPrompt{Server: "everything", Prompt: "args-prompt", Args: map[string]string{"city": "Paris", "state": "New York"}}, true, false},
		{"/s:p", mcp.SlashPrompt{Server: "s", Prompt: "p", Args: map[string]string{}}, true, false},
		{"/compact", mcp.SlashPrompt{}, false, false},
		{"what is /a:b", mcp.SlashPrompt{}, false, false},
		{"/s:p city", mcp.SlashPrompt{}, true, true},
		{"/s:p city=\"open", mcp.SlashPrompt{}, true, true},
	}
	for _, tc := range tests {
		got, ok, err := mcp.ParseSlashPrompt(tc.in)
		if ok != tc.ok || (err != nil) != tc.bad || (!tc.bad && ok && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("ParseSlashPrompt(%q) = %+v, %v, %v", tc.in, got, ok, err)
		}
	}
}

// A resource mention and a prompt slash command against server-everything.
func TestMentionsAndPrompts(t *testing.T) {
	js := refServer(t, "server-everything")
	m, _ := newManager(t, map[string]config.Server{"everything": {Command: "node", Args: []string{js, "stdio"}}}, mcp.Options{ConnectTimeout: 30 * time.Second})
	ctx := t.Context()
	res, err := m.Resources(ctx, "everything")
	if err != nil || len(res) == 0 {
		t.Fatalf("resources %v %v", res, err)
	}
	uri := res[0].URI
	body, err := m.ReadResource(ctx, "everything", uri)
	if err != nil {
		t.Fatal(err)
	}
	text := "summarise @everything:" + uri + " please, and mail me@example.com"
	got, err := m.ExpandMentions(ctx, text, mcp.MentionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, text+"\n\n<resource server=\"everything\" uri=\""+uri+"\"") || !strings.Contains(got, body) {
		t.Fatalf("expanded:\n%s", got)
	}
	if strings.Count(got, "<resource ") != 1 {
		t.Errorf("only the mention of a configured server is attached:\n%s", got)
	}
	p, ok, err := mcp.ParseSlashPrompt(`/everything:args-prompt city=Paris state="Île-de-France"`)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	prompt, err := m.PromptText(ctx, p)
	if err != nil || !strings.Contains(prompt, "Paris") || !strings.Contains(prompt, "Île-de-France") {
		t.Fatalf("prompt %q %v", prompt, err)
	}
	if _, err := m.PromptText(ctx, mcp.SlashPrompt{Server: "everything", Prompt: "no-such-prompt"}); err == nil || !strings.Contains(err.Error(), "everything") {
		t.Errorf("an unknown prompt: %v", err)
	}
}

func TestExpandTemplate(t *testing.T) {
	for _, tt := range []struct {
		tmpl   string
		values map[string]string
		want   string
		err    string
	}{
		{"demo://resource/dynamic/text/{resourceId}", map[string]string{"resourceId": "7"}, "demo://resource/dynamic/text/7", ""},
		{"file:///{+path}", map[string]string{"path": "a b/c"}, "file:///a%20b/c", ""},
		{"repo://{owner}/{name}", map[string]string{"owner": "a/b", "name": "x?"}, "repo://a%2Fb/x%3F", ""},
		{"search{?q,lang}", map[string]string{"q": "go", "lang": "en"}, "search?q=go&lang=en", ""},
		{"broken://{x", nil, "", "resource template"},
	} {
		got, err := mcp.ExpandTemplate(tt.tmpl, tt.values)
		if got != tt.want || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("ExpandTemplate(%q, %v) = %q, %v; want %q, %q", tt.tmpl, tt.values, got, err, tt.want, tt.err)
		}
	}
}
