package adapter

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/freeact/desktop/internal/appdirs"
)

// A start the model's missing key refuses does nothing first: no copy of
// the session is made for --fork, and the front end is not told the
// kernel starts.
func TestStartAgentChecksTheModelBeforeForking(t *testing.T) {
	for _, k := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	dirs := appdirs.In(t.TempDir())
	ws, err := OpenWorkspace(t.TempDir(), nil, dirs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var forked, started bool
	_, err = StartAgent(context.Background(), AgentSpec{
		Workspace: ws, Config: ws.Config, SessionID: "no-such-session", Fork: true, CheckModel: true,
		Forked: func(string) { forked = true }, Starting: func() { started = true },
	})
	var noModel *ModelError
	if !errors.As(err, &noModel) {
		t.Fatalf("StartAgent without a key: %v, want a ModelError before the copy is tried", err)
	}
	if forked || started {
		t.Errorf("forked %v, told starting %v: want neither", forked, started)
	}
}
