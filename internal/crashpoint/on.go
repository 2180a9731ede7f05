//go:build crashtest

package crashpoint

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

var state struct {
	once  sync.Once
	mu    sync.Mutex
	at    string
	n     int
	count *os.File
	seen  map[string]int
}

func setup() {
	state.seen = map[string]int{}
	if v := os.Getenv("FREEACT_CRASH_AT"); v != "" {
		name, n, _ := strings.Cut(v, ":")
		state.at = name
		state.n, _ = strconv.Atoi(n)
	}
	if p := os.Getenv("FREEACT_CRASH_COUNT"); p != "" {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "crashpoint:", err)
			os.Exit(70)
		}
		state.count = f
	}
}

// reached counts a visit of name and reports whether this is the one to
// die at.
func reached(name string) bool {
	state.once.Do(setup)
	state.mu.Lock()
	defer state.mu.Unlock()
	state.seen[name]++
	if state.count != nil {
		_, _ = state.count.WriteString(name + "\n")
	}
	return name == state.at && state.seen[name] == state.n
}

// Hit kills the process when it is the chosen visit of the chosen point.
func Hit(name string) {
	if reached(name) {
		Die()
	}
}

// Tear returns the first half of data when this is the chosen visit of
// name: the caller writes it and calls Die.
func Tear(name string, data []byte) []byte {
	if reached(name) {
		return data[:max(1, len(data)/2)]
	}
	return nil
}

// Die kills the process with SIGKILL, as the kernel or a user would.
func Die() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal arrives
}
