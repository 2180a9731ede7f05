package agent_test

import (
	"github.com/freeact/desktop/agent/ckpt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/freeact/desktop/agent/permission"
)

// The store keeps no content of what the FileRead ask rules name (paths
// in the workspace, relative or absolute), and protects the file
// sandbox_config names.
func TestCheckpointOptions(t *testing.T) {
	ws := workspace(t, `{"sandbox_config": "conf/sandbox.json"}`)
	perm, err := permission.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"keys/**", filepath.Join(ws, "private", "*.pem"), "/etc/shadow"} {
		if err := perm.Add(true, permission.Rule{Type: permission.TypeFileRead, ToolName: "filesystem_*", Path: p}); err != nil {
			t.Fatal(err)
		}
	}
	o := ckpt.StoreOptions(load(t, ws), perm)
	if want := []string{"**/.env", "**/.env.*", "keys/**", "private/*.pem"}; !slices.Equal(o.Secret, want) {
		t.Errorf("secret %q, want %q", o.Secret, want)
	}
	if want := []string{"conf/sandbox.json"}; !slices.Equal(o.Protected, want) {
		t.Errorf("protected %q, want %q", o.Protected, want)
	}
	if o := ckpt.StoreOptions(load(t, ws), nil); len(o.Secret) != 0 {
		t.Errorf("secret without rules: %q", o.Secret)
	}
}
