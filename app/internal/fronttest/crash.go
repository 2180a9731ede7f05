package fronttest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/internal/testenv"
)

// CrashBinary builds freeact with its kill points compiled in.
func CrashBinary(t *testing.T) string { return Binary(t, "-tags", "crashtest") }

// CrashRig is one workspace, its XDG folders (and so its checkpoint store)
// and the freeact binary.
type CrashRig struct {
	T    *testing.T
	Bin  string
	WS   string
	Home string // XDG folders
	Py   string
}

// env returns the environment of a run against a fresh fake model playing
// scenario ("" for none), killing at point:n when point is set.
func (r *CrashRig) Env(scenario, point string, n int, count string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "GEMINI_API_KEY" && k != "GOOGLE_API_KEY" && !strings.HasPrefix(k, "XDG_") && !strings.HasPrefix(k, "FREEACT_CRASH") {
			env = append(env, kv)
		}
	}
	url := "http://127.0.0.1:9" // nothing listens: a run without a scenario asks no model
	if scenario != "" {
		sc, err := modeltest.ParseScenario([]byte(scenario))
		if err != nil {
			r.T.Fatal(err)
		}
		sc.AllowUnplayed = true // a killed run stops early
		url = modeltest.NewGemini(r.T, sc).URL()
	}
	env = append(env, "GOOGLE_GEMINI_BASE_URL="+url, "GEMINI_API_KEY=fake-key", "NO_COLOR=1",
		"XDG_STATE_HOME="+r.Home+"/state", "XDG_CONFIG_HOME="+r.Home+"/config", "XDG_DATA_HOME="+r.Home+"/data")
	if point != "" {
		env = append(env, fmt.Sprintf("FREEACT_CRASH_AT=%s:%d", point, n))
	}
	if count != "" {
		env = append(env, "FREEACT_CRASH_COUNT="+count)
	}
	return env
}

// run runs freeact; killed reports death by SIGKILL.
func (r *CrashRig) Run(env []string, stdin string, args ...string) (out string, killed bool, err error) {
	cmd := exec.Command(r.Bin, args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			killed, err = true, nil
		}
	}
	if killed {
		// The kernel dies with freeact (Pdeathsig): wait for it, so that
		// no writer is left when the next run starts.
		testenv.Eventually(r.T, 30*time.Second, func() error {
			if pids := ProcessesWith(r.Home); len(pids) > 0 {
				return fmt.Errorf("processes of the killed run left: %v", pids)
			}
			return nil
		})
	}
	return b.String(), killed, err
}

// WSFiles hashes every file of the workspace outside .freeact.
func WSFiles(t *testing.T, ws string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(ws, p)
		if d.IsDir() {
			if rel == ".freeact" {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(p)
		sum := sha256.Sum256(data)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:8])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// DiffFiles says how two workspace states differ, briefly.
func DiffFiles(got, want map[string]string) string {
	var extra, missing, changed int
	var ex []string
	for k, v := range got {
		w, ok := want[k]
		switch {
		case !ok:
			extra++
			if len(ex) < 3 {
				ex = append(ex, "+"+k)
			}
		case w != v:
			changed++
			if len(ex) < 6 {
				ex = append(ex, "~"+k)
			}
		}
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			missing++
			if len(ex) < 9 {
				ex = append(ex, "-"+k)
			}
		}
	}
	return fmt.Sprintf("%d extra, %d missing, %d changed (%s)", extra, missing, changed, strings.Join(ex, " "))
}

func Write1(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func SameFiles(a, b map[string]string) bool { return maps.Equal(a, b) }
