package mcp_test

import (
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/internal/appdirs"
)

// A sign-in kept in files (no Secret Service) writes its tokens, client
// registration and refresh locks only below the folder appdirs lists as
// secret, which every sandbox hides.
func TestSignInFilesAreInTheHiddenStore(t *testing.T) {
	if _, err := config.SecretService().Get("probe"); err == nil {
		t.Skip("a Secret Service answers: tokens go there, not to files")
	}
	a := mcptest.NewOAuth(t)
	root := t.TempDir()
	dirs := appdirs.In(root)
	m := mcp.NewManager(map[string]config.Server{"secured": a.Server()}, mcp.Options{
		SignIn: mcp.SignInOptions{Dir: dirs.MCPSignIn(), Browser: follow},
	})
	defer m.Close()
	if _, err := m.Call(t.Context(), "secured", "echo", json.RawMessage(`{"text":"hi"}`)); err != nil {
		t.Fatal(err)
	}
	var files []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatal("the sign-in wrote no file")
	}
	for _, f := range files {
		if !underAny(f, dirs.SecretPaths()) {
			t.Errorf("%s is not in a store every sandbox hides (%v)", f, dirs.SecretPaths())
		}
	}
}

func underAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, path); err == nil && filepath.IsLocal(rel) && !strings.HasPrefix(rel, "..") {
			return true
		}
	}
	return false
}
