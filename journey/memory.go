package journey

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Proc is one process of a process tree and the memory it holds.
type Proc struct {
	PID  int
	Name string // what it runs: the executable's base name
	// RSS is the memory it has resident, shared pages included; PSS
	// divides each shared page among the processes that map it.
	RSS, PSS int64 // bytes
}

// Tree returns pid and every process below it, parents first, with their
// memory read from /proc/PID/smaps_rollup. A process that ends while the
// tree is read is left out.
func Tree(pid int) ([]Proc, error) {
	var out []Proc
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		proc, err := readProc(p)
		if err != nil {
			if p == pid {
				return nil, err
			}
			continue
		}
		out = append(out, proc)
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", p))
		for _, t := range tasks {
			b, _ := os.ReadFile(t)
			for _, f := range strings.Fields(string(b)) {
				if c, err := strconv.Atoi(f); err == nil {
					queue = append(queue, c)
				}
			}
		}
	}
	return out, nil
}

func readProc(pid int) (Proc, error) {
	p := Proc{PID: pid}
	exe, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return p, fmt.Errorf("read process %d: %w", pid, err)
	}
	p.Name = name(bytes.Split(bytes.TrimRight(exe, "\x00"), []byte{0}))
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return p, fmt.Errorf("read memory of process %d: %w", pid, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "Rss":
			p.RSS = n << 10
		case "Pss":
			p.PSS = n << 10
		}
	}
	return p, sc.Err()
}

// name says what a process with these arguments is: the executable's
// name, and for Python what it runs.
func name(args [][]byte) string {
	n := filepath.Base(string(args[0]))
	if !strings.HasPrefix(n, "python") {
		return n
	}
	all := string(bytes.Join(args, []byte(" ")))
	switch {
	case strings.Contains(all, "ipykernel_launcher"):
		return n + " (kernel)"
	case strings.Contains(all, "ServerApp"):
		return n + " (Jupyter server)"
	}
	return n
}

// Sum adds up the memory of procs.
func Sum(procs []Proc) (rss, pss int64) {
	for _, p := range procs {
		rss += p.RSS
		pss += p.PSS
	}
	return rss, pss
}

// Memory returns the app's process tree: the binary, WebKit's processes,
// the Jupyter server and the kernels.
func (a *App) Memory() []Proc {
	a.t.Helper()
	procs, err := Tree(a.cmd.Process.Pid)
	if err != nil {
		a.t.Fatalf("read the app's memory: %v", err)
	}
	return procs
}
