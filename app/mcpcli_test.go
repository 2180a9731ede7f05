package app

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/app/internal/fronttest"
	"github.com/freeact/desktop/internal/appdirs"
)

// `freeact mcp login NAME --workspace DIR`, the form the usage gives,
// signs in (flags go before or after the name); status then says so.
func TestMCPLoginCommand(t *testing.T) {
	auth := mcptest.NewOAuth(t)
	t.Setenv("BROWSER", fronttest.FollowBrowser(t))
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

// `freeact run --json` with a server that asks for a sampling while it
// connects: the server gets an error answer and the turn runs (the
// process crashed on a nil pointer before).
func TestRunJSONSamplingDuringHandshake(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, _ := terminalEnv(t, `
turns:
  - expect:
      tools: [asks_echo, ipybox_execute_ipython_cell, pytools_list_categories]
    reply: [{text: "Started."}]
`)
	srv, answer := mcptest.AsksOnInitialize(t)
	file := filepath.Join(ws, ".freeact", "agent.json")
	var cfg map[string]any
	if b, err := os.ReadFile(file); err != nil || json.Unmarshal(b, &cfg) != nil {
		t.Fatalf("read agent.json: %v", err)
	}
	cfg["mcp_servers"] = map[string]any{"asks": srv}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--workspace", ws, "--json", "--prompt", "Hello.")
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v; stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(string(out), "Started.") {
		t.Errorf("the turn did not run:\n%s", out)
	}
	got, err := os.ReadFile(answer)
	if err != nil {
		t.Fatalf("the server got no answer: %v", err)
	}
	if !strings.Contains(string(got), `"error"`) || !strings.Contains(string(got), "only during a call") {
		t.Errorf("answer %s; want an error saying sampling is answered only during a call", got)
	}
}
