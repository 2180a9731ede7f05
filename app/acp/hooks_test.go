package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A hook's notice reaches the ACP client: the user's own PreToolUse hook
// blocks the model's write, and the client gets a message paragraph that
// says so with the hook's words (markdown escaped); the write does not
// happen and the turn goes on.
func TestACPHookNoticeReachesTheClient(t *testing.T) {
	bin := freeactBinary(t)
	ws, environ, marker := env(t, `
turns:
  - reply: [{call: {id: w1, name: filesystem_write_text_file, args: {path: "notes.txt", content: "x"}}}]
  - reply: [{text: "Left it."}]
`)
	config := filepath.Join(marker, "config", "freeact")
	if err := os.MkdirAll(config, 0o700); err != nil {
		t.Fatal(err)
	}
	hooksJSON := `{"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "echo 'no writes via [ACP](https://x.example)' >&2; exit 2"}]}]}}`
	if err := os.WriteFile(filepath.Join(config, "hooks.json"), []byte(hooksJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startACP(t, bin, environ)
	p.initialize(t)
	id := p.newSession(t, ws)
	if _, err := p.prompt(t, id, "Write the notes."); err != nil {
		t.Fatalf("prompt: %v; stderr:\n%s", err, p.stderr.String())
	}
	updates, asked := p.c.snapshot()
	text := agentText(updates)
	if !strings.Contains(text, `A hook \(PreToolUse\) blocked Write\: no writes via \[ACP\]\(https\://x\.example\)`) {
		t.Errorf("the client was not told of the hook, as plain text; agent text:\n%s", text)
	}
	if !strings.Contains(text, "Left it.") {
		t.Errorf("the turn did not go on: %q", text)
	}
	if len(asked) != 0 {
		t.Errorf("%d permission requests for a call the hook blocked", len(asked))
	}
	if _, err := os.Stat(filepath.Join(ws, "notes.txt")); err == nil {
		t.Error("the blocked write happened")
	}
}
