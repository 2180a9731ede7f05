package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A hook turned off leaves "hooks" for "disabledHooks" (which Parse, like
// Claude Code, does not run) and comes back when turned on; other keys of
// the file stay.
func TestSetDisabledMovesAHookOutAndBack(t *testing.T) {
	orig := []byte(`{"model": "x", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "first.sh"}, {"type": "command", "command": "second.sh"}]}]}}`)
	off, err := SetDisabled(orig, PreToolUse, 0, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(off)
	if err != nil {
		t.Fatal(err)
	}
	if ms := s.Hooks[PreToolUse]; len(ms) != 1 || len(ms[0].Hooks) != 1 || ms[0].Hooks[0].Command != "first.sh" {
		t.Errorf("after disabling second.sh the hooks are %+v", ms)
	}
	if !strings.Contains(string(off), `"disabledHooks"`) || !strings.Contains(string(off), "second.sh") || !strings.Contains(string(off), `"model": "x"`) {
		t.Errorf("the disabled hook or the other keys are gone:\n%s", off)
	}
	on, err := SetDisabled(off, PreToolUse, 0, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	s, _ = Parse(on)
	var cmds []string
	for _, m := range s.Hooks[PreToolUse] {
		if m.Matcher != "Bash" {
			t.Errorf("matcher %q, want Bash", m.Matcher)
		}
		for _, h := range m.Hooks {
			cmds = append(cmds, h.Command)
		}
	}
	if strings.Join(cmds, " ") != "first.sh second.sh" || strings.Contains(string(on), "disabledHooks") {
		t.Errorf("after enabling again: %v\n%s", cmds, on)
	}
	if _, err := SetDisabled(on, PreToolUse, 3, 0, true); err == nil || !strings.Contains(err.Error(), "reload the list") {
		t.Errorf("a hook that is not there: %v", err)
	}
}

// Claude Code's hooks of a project are read only to be shown, with a digest
// of what was shown; the import adds exactly that to .freeact/hooks.json
// (keeping its own, not adding a group twice), and refuses when the files
// changed since they were shown or are links.
func TestImportClaudeAddsWhatWasShown(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadClaude(dir); err == nil || !strings.Contains(err.Error(), "no Claude Code hooks") {
		t.Errorf("a project without .claude: %v", err)
	}
	write := func(rel, body string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".claude/settings.json", `{"permissions": {"allow": ["Bash(ls)"]}, "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh"}]}]}}`)
	write(".claude/settings.local.json", `{"hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "log.sh"}]}]}}`)
	write(".freeact/hooks.json", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "own.sh"}]}]}}`)
	shown, err := ReadClaude(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(shown.Files) != 2 || !strings.Contains(shown.Files[0].Hooks, "guard.sh") || !strings.Contains(shown.Files[1].Hooks, "log.sh") || strings.Contains(shown.Files[0].Hooks, "Bash(ls)") {
		t.Fatalf("shown %+v", shown)
	}
	write(".claude/settings.local.json", `{"hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "other.sh"}]}]}}`)
	if _, err := ImportClaude(dir, shown.Digest); err == nil || !strings.Contains(err.Error(), "changed since they were shown") {
		t.Fatalf("an import of what was not shown: %v", err)
	}
	shown, _ = ReadClaude(dir)
	for range 2 {
		if _, err := ImportClaude(dir, shown.Digest); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(WorkspaceFile(dir))
	s, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Hooks[PreToolUse]) != 1 || len(s.Hooks[PostToolUse]) != 1 || len(s.Hooks[Stop]) != 1 || s.Hooks[PostToolUse][0].Hooks[0].Command != "other.sh" {
		t.Errorf("imported twice into:\n%s", data)
	}
	if err := os.Remove(filepath.Join(dir, ".claude/settings.local.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, ".claude/settings.local.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadClaude(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a linked settings file: %v", err)
	}
}
