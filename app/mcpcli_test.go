package app

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/internal/appdirs"
)

// `freeact mcp login NAME --workspace DIR`, the form the usage gives,
// signs in (flags go before or after the name); status then says so.
func TestMCPLoginCommand(t *testing.T) {
	auth := mcptest.NewOAuth(t)
	t.Setenv("BROWSER", followBrowser(t))
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent") // no keyring: tokens in 0600 files
	ws := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{"mcp_servers": map[string]any{"secured": auth.Server()}})
	if err := os.MkdirAll(filepath.Join(ws, ".freeact"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".freeact", "agent.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	b := Build{Dirs: appdirs.In(t.TempDir())}
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"flag after the name", []string{"mcp", "login", "secured", "--workspace", ws}, 0, "Signed in to secured.", ""},
		{"flag before the name", []string{"mcp", "login", "--workspace", ws, "secured"}, 0, "Signed in to secured.", ""},
		{"status", []string{"mcp", "status", "--workspace", ws}, 0, "secured\tsigned in; token expires", ""},
		{"two names", []string{"mcp", "login", "secured", "--workspace", ws, "other"}, 2, "", "mcp login takes the name of one HTTP server (have: [secured])"},
		{"no name", []string{"mcp", "logout", "--workspace", ws}, 2, "", "mcp logout takes the name of one HTTP server"},
		{"unknown flag after the name", []string{"mcp", "login", "secured", "--nope"}, 2, "", "flag provided but not defined: -nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(context.Background(), tc.args, b, Streams{In: strings.NewReader(""), Out: &stdout, Err: &stderr})
			if code != tc.wantCode || !strings.Contains(stdout.String(), tc.wantStdout) || !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("freeact %s: code %d, stdout %q, stderr %q; want code %d, stdout with %q, stderr with %q",
					strings.Join(tc.args, " "), code, stdout.String(), stderr.String(), tc.wantCode, tc.wantStdout, tc.wantStderr)
			}
		})
	}
	if _, authz := auth.Counts(); authz != 2 {
		t.Errorf("authorized %d times, want twice (once per login)", authz)
	}
}
