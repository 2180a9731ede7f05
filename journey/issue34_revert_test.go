//go:build journey

package journey

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/freeact/desktop/internal/testenv"
)

// Issue 34, item 10: a revert freeact was killed in (here `freeact
// checkpoints revert` of a binary built with -tags crashtest, killed at
// its first journal step) is offered at the next start with Finish and
// Roll back, beside the offer to replay the conversation's one cell.
// After Finish (at one size) or Roll back (at the other) the offer still
// lists that cell once: the status sent again after the recovery listed
// it twice. The files end wholly after or wholly before the revert.
func TestIssue34InterruptedRevertKeepsTheReplayOffer(t *testing.T) {
	crash := crashBinary(t)
	atSizes(t, func(t *testing.T, w, h int) {
		ws := Workspace(t, nil)
		app := Start(t, Options{Workspace: ws, Scenario: "testdata/one-cell.yaml", Width: w, Height: h})
		app.WaitFor(Text("Kernel ready"))
		app.RunApproved("Write two files", "Both files are written.")
		app.Stop()

		// The revert of the turn, killed after its journal's first step.
		cmd := exec.Command(crash, "checkpoints", "revert", "--yes", "--workspace", ws)
		cmd.Env = withEnv(os.Environ(), []string{
			"HOME=" + app.Home,
			"XDG_CONFIG_HOME=" + filepath.Join(app.Home, ".config"),
			"XDG_DATA_HOME=" + filepath.Join(app.Home, ".local", "share"),
			"XDG_CACHE_HOME=" + filepath.Join(app.Home, ".cache"),
			"XDG_STATE_HOME=" + filepath.Join(app.Home, ".local", "state"),
			"FREEACT_CRASH_AT=revert.journal:1",
			"NO_COLOR=1",
		})
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("the revert was not killed at its journal (%v):\n%s", err, out)
		}

		// Finish in the app's own window (1280×900, w 0), Roll back in the
		// small one.
		finish := w == 0
		app = Start(t, Options{Workspace: ws, Home: app.Home, Width: w, Height: h})
		app.WaitFor(Text("Kernel ready"))
		app.WaitFor(Role("landmark", "Interrupted revert"))
		offer := Role("landmark", "Restore the kernel state")
		app.WaitFor(offer)
		app.WaitFor(Button("Replay 1 cell"))
		app.Shot("interrupted-revert-and-replay-offer")
		cellsListed := func() int {
			n := 0
			for _, c := range app.FindAll(Role("list item", "")) {
				if strings.HasPrefix(c.Name, "Cell ") || strings.HasPrefix(c.Text, "Cell ") {
					n++
				}
			}
			return n
		}
		if n := cellsListed(); n != 1 {
			t.Fatalf("the replay offer lists %d cells before the recovery, want 1", n)
		}

		if finish {
			app.Click(Button("Finish"))
		} else {
			app.Click(Button("Roll back"))
		}
		// The progress line shows while the recovery runs: a short one may
		// be over before a screenshot.
		app.Shot("recovering")
		app.WaitGone(Role("landmark", "Interrupted revert"))
		app.WaitFor(Button("Replay 1 cell"))
		app.Shot("recovered")
		if n := cellsListed(); n != 1 {
			t.Errorf("the replay offer lists %d cells after the recovery, want the one cell once", n)
		}
		_, dataErr := os.Stat(filepath.Join(ws, "data.txt"))
		_, otherErr := os.Stat(filepath.Join(ws, "other.txt"))
		if finish && (!errors.Is(dataErr, os.ErrNotExist) || !errors.Is(otherErr, os.ErrNotExist)) {
			t.Errorf("Finish left the turn's files: data.txt %v, other.txt %v", dataErr, otherErr)
		}
		if !finish && (dataErr != nil || otherErr != nil) {
			t.Errorf("Roll back did not put the turn's files back: data.txt %v, other.txt %v", dataErr, otherErr)
		}
	})
}

// crashBinary builds the freeact command line with -tags crashtest
// (FREEACT_CRASH_AT kills it at a named step) once for the test.
func crashBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("FREEACT_CRASH_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "freeact-crash")
	cmd := exec.Command("go", "build", "-tags", "crashtest", "-o", bin, "github.com/freeact/desktop")
	cmd.Dir = testenv.RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build freeact -tags crashtest: %v\n%s", err, out)
	}
	return bin
}
