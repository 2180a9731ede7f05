package fronttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/internal/testenv"
)

// Env is a workspace using the test Python and the environment that
// points freeact at the wire-level fake Gemini server playing scenario
// and at private XDG folders; marker is a path in the environment of
// every process freeact starts.
func Env(t *testing.T, scenario string) (ws string, environ []string, marker string) {
	t.Helper()
	ws, environ, marker, _ = EnvServer(t, scenario)
	return ws, environ, marker
}

// EnvServer is Env with the fake model server, whose requests a test
// reads.
func EnvServer(t *testing.T, scenario string) (ws string, environ []string, marker string, fake *modeltest.Server) {
	t.Helper()
	py := testenv.Python(t)
	sc, err := modeltest.ParseScenario([]byte(scenario))
	if err != nil {
		t.Fatal(err)
	}
	fake = modeltest.NewGemini(t, sc)
	ws = t.TempDir()
	agentJSON, _ := json.Marshal(map[string]any{"python": py, "enable_subagents": false})
	if err := os.MkdirAll(filepath.Join(ws, ".freeact"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".freeact", "agent.json"), agentJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	marker = t.TempDir()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "GEMINI_API_KEY" && k != "GOOGLE_API_KEY" && !strings.HasPrefix(k, "XDG_") {
			environ = append(environ, kv)
		}
	}
	environ = append(environ,
		"GOOGLE_GEMINI_BASE_URL="+fake.URL(), "GEMINI_API_KEY=fake-key", "NO_COLOR=1",
		"XDG_STATE_HOME="+marker+"/state", "XDG_CONFIG_HOME="+marker+"/config", "XDG_DATA_HOME="+marker+"/data")
	return ws, environ, marker, fake
}
