package app

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/freeact/desktop/app/internal/fronttest"
	"github.com/freeact/desktop/app/terminal"
	"github.com/freeact/desktop/internal/testenv"
)

// These tests run the real freeact binary in terminal mode against a real
// kernel and the wire-level fake Gemini server.

// freeactBinary is freeact as built for users.
func freeactBinary(t *testing.T) string { return fronttest.FreeactBinary(t) }

func testPython(t *testing.T) string { return testenv.Python(t) }

// terminalEnv is fronttest.Env: a workspace and freeact's environment
// over the fake model playing scenario.
func terminalEnv(t *testing.T, scenario string) (ws string, env []string, marker string) {
	t.Helper()
	return fronttest.Env(t, scenario)
}

// screen collects what the program writes to its terminal.
type screen struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	seen int // offset up to which expect has matched
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

// expect waits until text appears after the last match.
func (s *screen) expect(t *testing.T, text string) {
	t.Helper()
	testenv.Eventually(t, 90*time.Second, func() error {
		s.mu.Lock()
		defer s.mu.Unlock()
		rest := s.buf.String()[s.seen:]
		i := strings.Index(rest, text)
		if i < 0 {
			return fmt.Errorf("%q did not appear; the terminal shows:\n%s", text, s.buf.String())
		}
		s.seen += i + len(text)
		return nil
	})
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// startTerminal runs cmd with env on a pseudo-terminal cols wide and
// returns its screen, a function that types, and its exit. The process is
// killed at the end of the test if it still runs; the screen is logged when
// the test fails or runs verbosely.
func startTerminal(t *testing.T, cmd *exec.Cmd, env []string, cols uint16) (*screen, func(string), <-chan error) {
	t.Helper()
	cmd.Env = env
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: cols})
	if err != nil {
		t.Fatal(err)
	}
	scr := &screen{}
	go func() { _, _ = io.Copy(scr, f) }()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill() // a no-op when the test saw it exit
		}
		f.Close()
		if t.Failed() || testing.Verbose() {
			t.Logf("terminal:\n%s", scr.String())
		}
	})
	send := func(s string) {
		if _, err := f.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	return scr, send, exited
}

// quit types q and waits for the program to exit with status 0.
func quit(t *testing.T, send func(string), exited <-chan error) {
	t.Helper()
	send("q\r")
	if err := testenv.Receive(t, exited, time.Minute, "the exit of freeact after q"); err != nil {
		t.Fatalf("exit: %v", err)
	}
}

func TestTerminalSession(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, marker := terminalEnv(t, `
turns:
  - expect:
      last: [{role: user, text: "What is 6*7?"}]
    reply:
      - thought: "Use Python."
      - call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "x = 6*7\nprint(x)"}}
    usage: {input: 120, output: 30, thinking: 12}
  - reply: [{text: "It is 42."}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "import time\nprint('sleeping', flush=True)\ntime.sleep(60)"}}}]
  - expect:
      has: [{role: user, response: ipybox_execute_ipython_cell, output: "Interrupted by user"}]
    reply: [{call: {id: c3, name: ipybox_execute_ipython_cell, args: {code: "!mkdir -p made && ls"}}}]
  - reply: [{text: "Made it."}]
  - reply: [{call: {id: c4, name: ipybox_execute_ipython_cell, args: {code: "print('first')"}}}]
  - reply: [{call: {id: c5, name: ipybox_execute_ipython_cell, args: {code: "print('second')"}}}]
  - reply: [{text: "Both ran."}]
`)
	scr, send, exited := startTerminal(t, exec.Command(bin, "run", "--workspace", ws), env, 120)
	scr.expect(t, "> ")
	send("What is 6*7?\r")
	scr.expect(t, "thinking: Use Python.")
	scr.expect(t, "  1 │ x = 6*7")
	scr.expect(t, "  2 │ print(x)")
	scr.expect(t, "Approve? [Y/n/a/s/d/e]")
	send("y\r")
	scr.expect(t, "42")
	scr.expect(t, "It is 42.")
	scr.expect(t, "tokens: 120 in · 30 out · 12 thinking")
	scr.expect(t, "> ")

	// Ctrl-C cancels the running cell, not the program.
	send("Sleep.\r")
	scr.expect(t, "Approve?")
	send("\r") // Enter is yes
	scr.expect(t, "sleeping")
	send("\x03")
	scr.expect(t, "[cancelled during tool execution]")
	scr.expect(t, "> ")

	// Each shell command is asked on its own; "a" saves the rule.
	send("Make a folder.\r")
	scr.expect(t, "Approve?")
	send("y\r")
	scr.expect(t, "$ mkdir -p made")
	scr.expect(t, `(a: always allow "mkdir *"`)
	send("a\r")
	scr.expect(t, "Made it.")
	scr.expect(t, "> ")

	// "s" grants this session: the next cell runs without asking, shown
	// all the same with the grant that allowed it; /revoke takes it back.
	send("Two cells.\r")
	scr.expect(t, "  1 │ print('first')")
	scr.expect(t, "Approve?")
	send("s\r")
	scr.expect(t, `Allowed for this session (1): CodeAction "ipybox_execute_ipython_cell"`)
	scr.expect(t, "  1 │ print('second')")
	scr.expect(t, `allowed by this session's grant "ipybox_execute_ipython_cell"`)
	scr.expect(t, "second")
	scr.expect(t, "Both ran.")
	scr.expect(t, "> ")
	send("/grants\r")
	scr.expect(t, `  1. CodeAction "ipybox_execute_ipython_cell"`)
	send("/revoke 1\r")
	scr.expect(t, "Revoked CodeAction")
	scr.expect(t, "This session has no grants")
	send("q\r")

	quit(t, send, exited)
	if _, err := os.Stat(filepath.Join(ws, "made")); err != nil {
		t.Errorf("approved command did not run: %v", err)
	}
	perms, _ := os.ReadFile(filepath.Join(ws, ".freeact", "permissions.json"))
	if !strings.Contains(string(perms), `"mkdir *"`) {
		t.Errorf("'a' did not save the rule:\n%s", perms)
	}
	if pids := fronttest.ProcessesWith(marker); len(pids) > 0 {
		t.Errorf("processes left running after exit: %v", pids)
	}
}

func TestRunPromptJSON(t *testing.T) {
	bin := freeactBinary(t)
	tests := []struct {
		name     string
		answers  string
		scenario string
		status   int
	}{
		{"answered", "y\n", `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
  - reply: [{text: "It is 42."}]
`, 0},
		{"rejected", "n\n", `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
`, 3},
		{"model fails", "", `
turns:
  - error: {status: 400, message: "the request is bad"}
`, 1},
		{"answer cut at max_tokens", "", `
turns:
  - reply: [{text: "It is"}]
    finish: max_tokens
`, 5},
		{"cut reply, then an answer", "y\n", `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
    finish: max_tokens
  - reply: [{text: "It is 42."}]
`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, env, marker := terminalEnv(t, tt.scenario)
			cmd := exec.Command(bin, "run", "--workspace", ws, "--prompt", "What is 6*7?", "--json")
			cmd.Env = env
			cmd.Stdin = strings.NewReader(tt.answers)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			status := 0
			var exitErr *exec.ExitError
			if errors.As(err, &exitErr) {
				status = exitErr.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if status != tt.status {
				t.Errorf("exit status %d, want %d; stderr:\n%s", status, tt.status, stderr.String())
			}
			var types []string
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				var ev map[string]any
				if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
					t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
				}
				if ev["agent_id"] != "main" {
					t.Errorf("event without agent_id: %s", sc.Text())
				}
				types = append(types, ev["type"].(string))
				if ev["type"] == "ApprovalRequest" {
					call := ev["tool_call"].(map[string]any)
					if call["type"] != "CodeAction" || call["code"] != "print(6*7)" {
						t.Errorf("approval request %s", sc.Text())
					}
				}
				if ev["type"] == "CodeExecutionOutput" && strings.TrimSpace(ev["text"].(string)) != "42" {
					t.Errorf("output %s", sc.Text())
				}
			}
			joined := strings.Join(types, " ")
			switch tt.name {
			case "answered":
				if !strings.Contains(joined, "ApprovalRequest CodeExecutionOutputChunk CodeExecutionOutput ToolOutput") || !strings.HasSuffix(joined, "Response") {
					t.Errorf("events: %s", joined)
				}
			case "rejected":
				if strings.Contains(joined, "CodeExecutionOutput") {
					t.Errorf("rejected code ran: %s", joined)
				}
			case "model fails":
				if !strings.HasSuffix(joined, "Failed") {
					t.Errorf("events: %s", joined)
				}
			}
			if pids := fronttest.ProcessesWith(marker); len(pids) > 0 {
				t.Errorf("processes left running after exit: %v", pids)
			}
		})
	}
}

func TestRunWithoutAPIKey(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, _ := terminalEnv(t, "turns: []")
	var clean []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GEMINI_API_KEY=") {
			clean = append(clean, kv)
		}
	}
	cmd := exec.Command(bin, "run", "--workspace", ws, "--prompt", "hi")
	cmd.Env = clean
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "GEMINI_API_KEY") || !strings.Contains(string(out), ".env") {
		t.Errorf("err %v, output:\n%s", err, out)
	}
}

func TestRunSandboxed(t *testing.T) {
	bin := freeactBinary(t)
	srtBin := testenv.SrtDir(t)
	outside := filepath.Join(t.TempDir(), "escaped.txt")
	code := "try:\n    open(" + strconv.Quote(outside) + ", 'w').write('x')\nexcept OSError as e:\n    print('blocked:', e.strerror)"
	codeJSON, _ := json.Marshal(code)
	ws, env, _ := terminalEnv(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+string(codeJSON)+`}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "blocked: Read-only file system"}]
    reply: [{text: "It stayed inside."}]
`)
	withPath := func(env []string, path string) []string {
		var out []string
		for _, kv := range env {
			if !strings.HasPrefix(kv, "PATH=") {
				out = append(out, kv)
			}
		}
		return append(out, "PATH="+path)
	}
	cmd := exec.Command(bin, "run", "--workspace", ws, "--sandbox", "--skip-permissions", "--prompt", "Escape.")
	cmd.Env = withPath(env, srtBin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "It stayed inside.") || !strings.Contains(string(out), "(sandboxed)") {
		t.Errorf("err %v, output:\n%s", err, out)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("the sandboxed cell wrote outside the workspace")
	}

	// Without srt, sandbox mode refuses to start and says what to install.
	ws2, env2, _ := terminalEnv(t, "turns: []")
	cmd = exec.Command(bin, "run", "--workspace", ws2, "--sandbox", "--prompt", "hi")
	cmd.Env = withPath(env2, "/usr/bin:/bin")
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "npm install -g @anthropic-ai/sandbox-runtime") {
		t.Errorf("err %v, output:\n%s", err, out)
	}
}

func TestTerminalSecondCtrlCQuits(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, marker := terminalEnv(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "import time\nwhile True:\n    try:\n        print('looping', flush=True)\n        time.sleep(60)\n    except KeyboardInterrupt:\n        print('ignoring Ctrl-C', flush=True)"}}}]
`)
	cmd := exec.Command(bin, "run", "--workspace", ws, "--skip-permissions")
	cmd.Env = env
	f, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	scr := &screen{}
	go func() { _, _ = io.Copy(scr, f) }()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	scr.expect(t, "> ")
	f.Write([]byte("Loop.\r"))
	scr.expect(t, "looping")
	f.Write([]byte("\x03"))
	scr.expect(t, "Ctrl-C again quits")
	f.Write([]byte("\x03"))
	select {
	case <-exited:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("a second Ctrl-C did not quit; terminal:\n%s", scr.String())
	}
	if pids := fronttest.ProcessesWith(marker); len(pids) > 0 {
		t.Errorf("processes left running after exit: %v", pids)
	}
}

// Model-written text cannot hide a command in the terminal: carriage
// returns and escape sequences in code and commands are shown as escapes,
// never sent to the terminal. A write of permissions.json warns and can
// only be allowed once.
func TestTerminalShowsWhatRuns(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, _ := terminalEnv(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "x = 1  # hidden\r# shown\n!touch 'pwned\x1b[2K\x1b[1A$ ls -la'"}}}]
  - reply: [{call: {id: w1, name: filesystem_write_text_file, args: {path: .freeact/permissions.json, content: "{\"allow\": [], \"ask\": []}\n"}}}]
  - reply: [{text: "Done."}]
`)
	scr, send, exited := startTerminal(t, exec.Command(bin, "run", "--workspace", ws), env, 160)
	scr.expect(t, "> ")
	send("Go.\r")
	scr.expect(t, `  1 │ x = 1  # hidden\r# shown`)
	scr.expect(t, `  2 │ !touch 'pwned\x1b[2K\x1b[1A$ ls -la'`)
	scr.expect(t, "Approve? [Y/n/a/s/d/e]")
	send("y\r")
	scr.expect(t, `$ touch 'pwned\x1b[2K\x1b[1A$ ls -la'`)
	scr.expect(t, "Approve? [Y/n/a/s/d]")
	send("n\r")
	scr.expect(t, "> ")

	send("Change the rules.\r")
	scr.expect(t, "Warning: it changes .freeact/permissions.json: this changes what the agent may do without asking")
	scr.expect(t, "Approve once? [Y/n]")
	send("a\r")
	scr.expect(t, "This call can only be allowed once: answer y (yes) or n (no).")
	send("y\r")
	scr.expect(t, "Done.")
	scr.expect(t, "> ")
	quit(t, send, exited)

	// The terminal got no escape sequence and no carriage return of its
	// own from model text (the pty turns each newline into \r\n).
	out := strings.ReplaceAll(scr.String(), "\r\n", "\n")
	if i := strings.IndexAny(out, "\x1b\r"); i >= 0 {
		t.Errorf("raw control character at %d: %q", i, out[max(0, i-40):min(len(out), i+40)])
	}
	if _, err := os.Stat(filepath.Join(ws, "pwned\x1b[2K\x1b[1A$ ls -la")); err == nil {
		t.Error("the rejected command ran")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".freeact", "permissions.json")); string(b) != "{\"allow\": [], \"ask\": []}\n" {
		t.Errorf("the approved write did not happen, or a rule was saved: %s", b)
	}
}

// A line of stdin over the limit is an error, not a quiet end of input:
// as a request in the terminal and as an approval answer with --json.
func TestStdinLineTooLong(t *testing.T) {
	bin := freeactBinary(t)
	long := strings.Repeat("x", terminal.MaxInputLine+1)
	tests := []struct {
		name     string
		args     []string
		scenario string
		stdin    string
	}{
		{"request", nil, "turns: []", long + "\n"},
		{"approval answer", []string{"--json", "--prompt", "Go."}, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}}]
`, long + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, env, _ := terminalEnv(t, tt.scenario)
			cmd := exec.Command(bin, append([]string{"run", "--workspace", ws}, tt.args...)...)
			cmd.Env = env
			cmd.Stdin = strings.NewReader(tt.stdin)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exitErr *exec.ExitError
			if !errors.As(err, &exitErr) || exitErr.ExitCode() != 1 {
				t.Fatalf("exit %v, want status 1; stderr:\n%s", err, stderr.String())
			}
			if want := "read standard input: a line is longer than 16 MiB, the most freeact reads as one line"; !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
			}
		})
	}
}

// With --json, a protected request says so in its event, and "a" counts
// as a one-time yes: the write happens and no rule is saved.
func TestRunJSONProtected(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, _ := terminalEnv(t, `
turns:
  - reply: [{call: {id: w1, name: filesystem_write_text_file, args: {path: .freeact/agent.json, content: "{}\n"}}}]
  - reply: [{text: "Done."}]
`)
	cmd := exec.Command(bin, "run", "--workspace", ws, "--json", "--prompt", "Reset the settings.")
	cmd.Env = env
	cmd.Stdin = strings.NewReader("a\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v; stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(string(out), `"reason":"it changes .freeact/agent.json: this changes what the agent may do without asking","protected":true`) {
		t.Errorf("the approval event does not say it is protected:\n%s", out)
	}
	if !strings.Contains(stderr.String(), `approval answer "a": this call can only be allowed once; taken as y`) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".freeact", "agent.json")); string(b) != "{}\n" {
		t.Errorf("agent.json = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".freeact", "permissions.json")); strings.Contains(string(b), "agent.json") {
		t.Errorf("a rule was saved:\n%s", b)
	}
}
