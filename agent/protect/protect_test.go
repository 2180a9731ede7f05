package protect

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestRestore(t *testing.T) {
	ws := t.TempDir()
	dir := filepath.Join(ws, ".freeact")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	perms, agent, absent := filepath.Join(dir, "permissions.json"), filepath.Join(dir, "agent.json"), filepath.Join(dir, "sandbox-config.json")
	for _, f := range []string{perms, agent} {
		if err := os.WriteFile(f, []byte("original "+filepath.Base(f)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	g := New(perms, agent, absent)
	if back, err := g.Restore(); err != nil || len(back) != 0 {
		t.Fatalf("nothing changed: %v %v", back, err)
	}
	// A rewrite, a link swapped in for a file, and a file made where none was.
	outside := filepath.Join(t.TempDir(), "evil.json")
	if err := os.WriteFile(outside, []byte("allow everything"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(perms, []byte("allow everything"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(agent); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, agent); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(absent, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := g.Restore()
	slices.Sort(back)
	if err != nil || !slices.Equal(back, []string{agent, perms, absent}) {
		t.Fatalf("Restore = %q, %v", back, err)
	}
	for f, want := range map[string]string{perms: "original permissions.json", agent: "original agent.json"} {
		info, err := os.Lstat(f)
		got, _ := os.ReadFile(f)
		if err != nil || !info.Mode().IsRegular() || string(got) != want || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v %q", f, info, err, got)
		}
	}
	if _, err := os.Lstat(absent); !os.IsNotExist(err) {
		t.Errorf("the file made where none was is still there: %v", err)
	}
	if got, _ := os.ReadFile(outside); string(got) != "allow everything" {
		t.Errorf("the link's target was written: %q", got)
	}
	// An approved write is accepted; a folder swapped for a link is not
	// followed to put a file back.
	if err := os.WriteFile(perms, []byte("approved"), 0o644); err != nil {
		t.Fatal(err)
	}
	g.Accept(perms)
	if back, err := g.Restore(); err != nil || len(back) != 0 {
		t.Fatalf("after Accept: %v %v", back, err)
	}
	elsewhere := t.TempDir()
	if err := os.Rename(dir, filepath.Join(ws, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Restore(); err == nil {
		t.Error("a folder swapped for a link was followed without an error")
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("files were written through the link: %v", entries)
	}
}
