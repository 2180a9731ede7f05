package acp_test

import (
	"bytes"
	"github.com/freeact/desktop/app/internal/fronttest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/testenv"
)

// acpx is the headless ACP client from npm (scripts/acp-clients, which
// make test installs): these tests drive freeact acp through it as a
// script would.
func acpx(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(testenv.RepoRoot(t), "scripts", "acp-clients", "node_modules", ".bin", "acpx")
	if _, err := os.Stat(bin); err != nil {
		testenv.Missing(t, "no acpx: run make test, or npm install --no-save in scripts/acp-clients")
	}
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Missing(t, "no node for acpx")
	}
	return bin
}

// acpxRun runs acpx in the workspace with a home of its own (acpx keeps
// its session records in ~/.acpx) and returns what it printed.
type acpxEnv struct {
	bin, freeact, ws, marker string
	environ                  []string
}

func newAcpx(t *testing.T, scenario string) *acpxEnv {
	t.Helper()
	a := &acpxEnv{bin: acpx(t), freeact: freeactBinary(t)}
	a.ws, a.environ, a.marker = env(t, scenario)
	home := filepath.Join(a.marker, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	a.environ = append(a.environ, "HOME="+home)
	t.Cleanup(func() { a.stopOwners(t) })
	return a
}

func (a *acpxEnv) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command(a.bin, append([]string{"--agent", a.freeact + " acp", "--format", "json"}, args...)...)
	cmd.Dir, cmd.Env = a.ws, a.environ
	return cmd
}

func (a *acpxEnv) run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := a.cmd(args...).CombinedOutput()
	if err != nil {
		t.Fatalf("acpx %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// stopOwners ends the acpx queue owners this test started (they keep the
// agent between prompts) and waits for their freeact acp to go.
func (a *acpxEnv) stopOwners(t *testing.T) {
	t.Helper()
	for _, pid := range fronttest.ProcessesWith(a.marker) {
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if bytes.Contains(cmdline, []byte("__queue-owner")) {
			syscall.Kill(pid, syscall.SIGTERM)
		}
	}
	deadline := time.Now().Add(time.Minute)
	for len(fronttest.ProcessesWith(a.marker)) > 0 {
		if time.Now().After(deadline) {
			t.Errorf("processes left after the acpx owners stopped: %v", fronttest.ProcessesWith(a.marker))
			return
		}
		time.Sleep(100 * time.Millisecond) // polling /proc: no event tells of another process's exit
	}
}

// TestAcpxApprovals: a code action approved once (--approve-all) and one
// rejected (--deny-all), through acpx exec.
func TestAcpxApprovals(t *testing.T) {
	tests := []struct {
		name, flag string
		ran        bool
	}{
		{"approved once", "--approve-all", true},
		{"rejected", "--deny-all", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scenario := codeTurn
			if !tt.ran {
				scenario = "turns:\n  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: \"print(6*7)\"}}}]\n"
			}
			a := newAcpx(t, scenario)
			cmd := a.cmd(tt.flag, "exec", "What is 6*7?")
			raw, err := cmd.CombinedOutput()
			out := string(raw)
			// acpx exits 5 when a permission was denied.
			if code := cmd.ProcessState.ExitCode(); (tt.ran && err != nil) || (!tt.ran && code != 5) {
				t.Fatalf("acpx exit %d (%v):\n%s", code, err, out)
			}
			if !strings.Contains(out, `"method":"session/request_permission"`) || !strings.Contains(out, `print(6*7)`) {
				t.Errorf("no permission request for the code:\n%s", out)
			}
			if got := strings.Contains(out, `42\n`); got != tt.ran {
				t.Errorf("output 42: %v, want %v:\n%s", got, tt.ran, out)
			}
			if tt.ran && !strings.Contains(out, `"stopReason":"end_turn"`) {
				t.Errorf("no end_turn:\n%s", out)
			}
		})
	}
}

// TestAcpxSessionCancelListLoad: a persistent acpx session; a cancel
// during time.sleep stops the turn (the model is told of the
// KeyboardInterrupt); the session is listed; after its agent is gone, the
// next prompt reopens it and the conversation goes on.
func TestAcpxSessionCancelListLoad(t *testing.T) {
	a := newAcpx(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "import time\nprint('sleeping', flush=True)\ntime.sleep(600)"}}}]
  - expect:
      has: [{role: user, response: ipybox_execute_ipython_cell, output: "KeyboardInterrupt"}]
    reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
  - reply: [{text: "It is 42."}]
`)
	a.run(t, "sessions", "new")
	var out syncBuffer
	prompt := a.cmd("--approve-all", "prompt", "Sleep.")
	prompt.Stdout, prompt.Stderr = &out, &out
	if err := prompt.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- prompt.Wait() }()
	// The session file has the turn's prompt once it runs; the cell's
	// output is in the client's output.
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(out.String(), `\nsleeping`) {
		if time.Now().After(deadline) {
			t.Fatalf("the cell did not start:\n%s", out.String())
		}
		time.Sleep(100 * time.Millisecond) // polling another process's output
	}
	a.run(t, "cancel")
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("acpx prompt did not end on cancel:\n%s", out.String())
	}
	if !strings.Contains(out.String(), `"stopReason":"cancelled"`) {
		t.Errorf("the turn did not end cancelled:\n%s", out.String())
	}

	list := a.run(t, "sessions", "list")
	if !strings.Contains(list, "Sleep.") {
		t.Errorf("sessions list does not show the session:\n%s", list)
	}

	a.stopOwners(t) // the agent goes; the next prompt loads the session
	again := a.run(t, "--approve-all", "prompt", "Go on.")
	// acpx reopens with session/resume where offered (session/load is
	// TestACPListAndLoad's).
	if !strings.Contains(again, `"method":"session/resume"`) && !strings.Contains(again, `"method":"session/load"`) {
		t.Errorf("acpx did not reopen the session:\n%s", again)
	}
	if !strings.Contains(again, `It is 42.`) || !strings.Contains(again, `42\n`) {
		t.Errorf("the loaded session did not go on:\n%s", again)
	}
}

// syncBuffer is a buffer another process's output is copied into while
// the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestAcpxAlwaysAndRejectAlways: acpx's runtime (the library under its
// command line, which never picks Always) answers allow_always, which
// writes the rule the desktop writes, or reject_always, which writes a
// deny rule: the same action in the next turn is then refused without a
// question.
func TestAcpxAlwaysAndRejectAlways(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Missing(t, "no node for acpx")
	}
	acpx(t)
	script := filepath.Join(testenv.RepoRoot(t), "scripts", "acp-clients", "acpx-decide.mjs")
	tests := []struct {
		decision, scenario, tier string
		asked                    int
	}{
		{"allow_always", codeTurn, `"allow": [`, 1},
		{"reject_always", `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
  - reply: [{text: "The deny rule refused it."}]
`, `"deny": [`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.decision, func(t *testing.T) {
			a := newAcpx(t, tt.scenario)
			prompts := []string{"What is 6*7?"}
			if tt.decision == "reject_always" {
				prompts = append(prompts, "Again: what is 6*7?")
			}
			argv := `["` + a.freeact + `","acp"]`
			cmd := exec.Command("node", append([]string{script, filepath.Join(a.marker, "acpx-state"), tt.decision, argv}, prompts...)...)
			cmd.Dir, cmd.Env = a.ws, a.environ
			raw, err := cmd.CombinedOutput()
			out := string(raw)
			if err != nil {
				t.Fatalf("acpx runtime: %v\n%s", err, out)
			}
			t.Logf("acpx runtime, %s:\n%s", tt.decision, out)
			if n := strings.Count(out, `"type":"permission_request"`); n != tt.asked {
				t.Errorf("%d permission requests, want %d:\n%s", n, tt.asked, out)
			}
			if !strings.Contains(out, `"kind":"`+tt.decision+`"`) {
				t.Errorf("no %s option offered:\n%s", tt.decision, out)
			}
			rules, _ := os.ReadFile(filepath.Join(a.ws, ".freeact", "permissions.json"))
			_, tier, _ := strings.Cut(string(rules), tt.tier)
			if !strings.Contains(tier, `"tool_name": "ipybox_execute_ipython_cell"`) {
				t.Errorf("no %s rule for the code action in permissions.json:\n%s", tt.tier, rules)
			}
			switch tt.decision {
			case "allow_always":
				if !strings.Contains(out, `42\n`) {
					t.Errorf("the approved code did not run:\n%s", out)
				}
			case "reject_always":
				if strings.Contains(out, `42\n`) || !strings.Contains(out, "Refused without asking by the deny rule") || !strings.Contains(out, "The deny rule refused it.") {
					t.Errorf("the second call was not refused without asking:\n%s", out)
				}
			}
		})
	}
}
