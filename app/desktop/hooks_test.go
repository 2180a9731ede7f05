package desktop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/model/modeltest"
)

// Settings → Hooks over a workspace whose hooks were never trusted: they
// are listed, with their commands, as not trusted and do not run; trusting
// what the window showed (not other content) restarts the agent with them;
// a call they deny is told as a HookNote with the hook's words and is
// listed as the hook's last run; turning the hook off keeps it in the file
// (disabledHooks) and keeps the trust.
func TestDesktopHooksTrustRunAndDisable(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: w1, name: filesystem_write_text_file, args: {path: "notes.txt", content: "x"}}}]
  - reply: [{text: "Done."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	hook := `echo "no writes in this workspace" >&2; exit 2`
	hooksJSON := `{"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "` + strings.ReplaceAll(hook, `"`, `\"`) + `"}]}]}}`
	if err := os.WriteFile(filepath.Join(ws, ".freeact", "hooks.json"), []byte(hooksJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.shutdown)
	h.waitState(t, KernelReady)

	info, err := d.Hooks()
	if err != nil {
		t.Fatal(err)
	}
	w := info.Workspace
	if !w.Exists || w.Trusted || w.Changed || len(w.Hooks) != 1 || w.Hooks[0].Command != hook || w.Content != hooksJSON {
		t.Fatalf("untrusted workspace hooks listed as %+v", w)
	}
	if info.User.Exists || info.Claude {
		t.Errorf("user hooks or Claude settings where there are none: %+v", info)
	}
	if _, err := d.TrustHooks("sha256:other"); err == nil || !strings.Contains(err.Error(), "changed since they were shown") {
		t.Fatalf("trusting content not shown: %v", err)
	}
	from := h.statusCount()
	info, err = d.TrustHooks(w.Digest)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Workspace.Trusted || !strings.Contains(info.Note, "restarted") {
		t.Fatalf("after trust: %+v", info)
	}
	h.waitStatusAfter(t, KernelReady, from)

	if err := d.Send("Write the notes.", nil); err != nil {
		t.Fatal(err)
	}
	note, _ := h.waitEvent(t, "HookNote", 0)
	if note["kind"] != "blocked" || note["tool"] != "Write" || note["text"] != "no writes in this workspace" {
		t.Errorf("hook note %v", note)
	}
	waitTurnEnded(t, h, 0)
	if _, err := os.Stat(filepath.Join(ws, "notes.txt")); err == nil {
		t.Error("the denied write happened")
	}
	info, err = d.Hooks()
	if err != nil {
		t.Fatal(err)
	}
	runs := info.Workspace.Hooks[0].Runs
	if len(runs) != 1 || runs[0].Verdict != "blocked" || runs[0].Tool != "Write" || runs[0].Event != "PreToolUse" {
		t.Errorf("last runs %+v", runs)
	}

	h.waitState(t, KernelReady)
	info, err = d.SetHookDisabled("workspace", "PreToolUse", 0, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if w := info.Workspace; len(w.Hooks) != 1 || !w.Hooks[0].Disabled || !w.Trusted {
		t.Errorf("after disabling: %+v", w)
	}
	if _, err := d.SaveHooks("workspace", `{"hooks": {"Nope": []}}`); err == nil || !strings.Contains(err.Error(), "unknown event") {
		t.Errorf("saving bad hooks: %v", err)
	}
	// Your own hooks are saved in the settings folder and always run.
	h.waitState(t, KernelReady)
	info, err = d.SaveHooks("user", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}`)
	if err != nil {
		t.Fatal(err)
	}
	if u := info.User; !u.Exists || !u.Trusted || len(u.Hooks) != 1 || u.Hooks[0].Command != "notify-send done" || filepath.Dir(u.Path) != d.build.Dirs.Config {
		t.Errorf("your hooks after saving: %+v", u)
	}
	if _, err := d.SaveHooks("elsewhere", "{}"); err == nil || !strings.Contains(err.Error(), `use "user" or "workspace"`) {
		t.Errorf("hooks of another source: %v", err)
	}
}
