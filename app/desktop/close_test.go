package desktop

import (
	"errors"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/app/internal/fronttest"
	"github.com/freeact/desktop/internal/testenv"
)

// Closing a workspace while its agent is still starting waits for that
// start, so the Jupyter server and kernel it was bringing up are stopped
// before close returns, not later by an orphaned goroutine.
func TestCloseDuringStartLeavesNoProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Jupyter server")
	}
	marker := "FREEACT_CLOSE_DURING_START_" + t.Name() + time.Now().Format("150405.000000000")
	t.Setenv("FREEACT_TEST_MARKER", marker)
	sc, err := modeltest.ParseScenario([]byte("name: no turns\nallow_unplayed: true\nturns: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, _, ws := testDesktop(t)
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	// Wait until the start has a process running: the server or kernel.
	testenv.Eventually(t, 2*time.Minute, func() error {
		if len(fronttest.ProcessesWith(marker)) == 0 {
			return errors.New("the agent start runs no process")
		}
		return nil
	})
	d.shutdown()
	if pids := fronttest.ProcessesWith(marker); len(pids) > 0 {
		t.Errorf("processes still running after the workspace closed: %v", pids)
	}
}
