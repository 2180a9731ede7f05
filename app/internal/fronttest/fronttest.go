// Package fronttest holds what the tests of the front ends (the window,
// the terminal) share.
package fronttest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/freeact/desktop/internal/testenv"
)

// RecordOpens puts stand-ins for xdg-open and the browser alternatives
// first on PATH (and clears $BROWSER): each records its arguments and
// exits with status. It returns what they were called with so far, one
// argument vector (program first) a call.
func RecordOpens(t *testing.T, status int) func() [][]string {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "argv.log")
	script := fmt.Sprintf("#!/bin/sh\nfor a in \"$0\" \"$@\"; do printf '%%s\\n' \"$a\" >> %s; done\necho --end-- >> %s\n"+
		"echo 'no application is registered for this' >&2\nexit %d\n", log, log, status)
	for _, n := range []string{"xdg-open", "x-www-browser", "www-browser"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("BROWSER", "")
	return func() [][]string {
		data, err := os.ReadFile(log)
		if err != nil {
			return nil
		}
		var out [][]string
		var cur []string
		for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			if l == "--end--" {
				out = append(out, cur)
				cur = nil
				continue
			}
			cur = append(cur, l)
		}
		return out
	}
}

// SyncWriter writes to W under Mu: a buffer written from several
// goroutines.
type SyncWriter struct {
	Mu *sync.Mutex
	W  io.Writer
}

func (s *SyncWriter) Write(p []byte) (int, error) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	return s.W.Write(p)
}

// ProcessesWith lists the processes whose environment mentions marker.
func ProcessesWith(marker string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(b, []byte(marker)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// FollowBrowser writes a $BROWSER script that plays the browser of a user
// who is signed in at the authorization server: it follows the redirects
// to the loopback listener with curl.
func FollowBrowser(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/usr/bin/curl"); err != nil {
		testenv.Missing(t, "curl is not installed")
	}
	p := filepath.Join(t.TempDir(), "browser")
	WriteScript(t, p, "#!/bin/sh\nexec /usr/bin/curl -sfL -o /dev/null \"$1\"\n")
	return p
}

// WriteScript writes an executable script at p.
func WriteScript(t *testing.T, p, text string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}
