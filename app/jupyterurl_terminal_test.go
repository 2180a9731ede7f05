package app

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The terminal names the Jupyter server it starts on without the URL's
// password or token, also when the server is not there.
func TestTerminalNamesJupyterServerRedacted(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, _ := terminalEnv(t, "turns: []")
	cfg, _ := json.Marshal(map[string]any{"jupyter_url": "http://me:pw-s3cret@127.0.0.1:1/?token=tok-s3cret", "jupyter_reconnect_timeout": 0})
	if err := os.WriteFile(filepath.Join(ws, ".freeact", "agent.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--workspace", ws, "--prompt", "hi")
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run() // the server is not there
	if s := out.String(); strings.Contains(s, "s3cret") || !strings.Contains(s, "on the Jupyter server http://***@127.0.0.1:1/") {
		t.Errorf("the terminal wrote:\n%s", s)
	}
}
