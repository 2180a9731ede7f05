//go:build acpjupyter

package acp_test

// Jupyter AI 3 in a real JupyterLab, driven by headless Chromium, with
// freeact as a persona (scripts/acp-clients/jupyter/freeact_persona.py).
// Built only with -tags acpjupyter (make test-acp-jupyter, which installs
// JupyterLab and Jupyter AI into .cache/acp-clients/jupyter-venv first).

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/freeact/desktop/app/internal/fronttest"
	"github.com/freeact/desktop/internal/testenv"
)

// The relay: Jupyter AI starts FREEACT_BIN acp; in the test that is this
// test binary, which starts the real freeact acp and copies the protocol
// both ways unchanged, writing each message to the transcript.
const (
	relayTarget = "FREEACT_TEST_ACP_RELAY_TARGET"
	relayLog    = "FREEACT_TEST_ACP_RELAY_LOG"
)

func init() {
	target := os.Getenv(relayTarget)
	if target == "" {
		return
	}
	os.Exit(relay(target, os.Getenv(relayLog), os.Args[1:]))
}

func relay(target, logPath string, args []string) int {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		return 1
	}
	defer logf.Close()
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != relayTarget && k != relayLog {
			env = append(env, kv)
		}
	}
	cmd := exec.Command(target, args...)
	cmd.Env, cmd.Stderr = env, os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		return 1
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	start := time.Now()
	var mu sync.Mutex
	copyLines := func(dst io.Writer, src io.Reader, dir string) {
		r := bufio.NewReaderSize(src, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				mu.Lock()
				fmt.Fprintf(logf, "%8.3fs %s %s", time.Since(start).Seconds(), dir, line)
				if line[len(line)-1] != '\n' {
					fmt.Fprintln(logf)
				}
				mu.Unlock()
				_, _ = dst.Write(line)
			}
			if err != nil {
				return
			}
		}
	}
	go func() {
		copyLines(in, os.Stdin, "client->agent")
		in.Close()
	}()
	copyLines(os.Stdout, out, "agent->client")
	if err := cmd.Wait(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		return 1
	}
	return 0
}

// jupyterVenv is the venv make deps-jupyter-ai fills.
func jupyterVenv(t *testing.T) string {
	t.Helper()
	venv := filepath.Join(testenv.RepoRoot(t), ".cache", "acp-clients", "jupyter-venv")
	if _, err := os.Stat(filepath.Join(venv, "bin", "jupyter-lab")); err != nil {
		t.Skip("no JupyterLab with Jupyter AI in .cache/acp-clients/jupyter-venv: run make test-acp-jupyter (it installs them)")
	}
	return venv
}

func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH: scripts/system-deps.sh test installs Debian's")
	return ""
}

// artifacts is where the screenshot and the transcript are kept for the
// closing note: $FREEACT_ACP_JUPYTER_OUT, else .cache/acp-clients/jupyter-out.
func artifacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("FREEACT_ACP_JUPYTER_OUT")
	if dir == "" {
		dir = filepath.Join(testenv.RepoRoot(t), ".cache", "acp-clients", "jupyter-out")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// stopPID ends a process this test started: SIGTERM, then SIGKILL after
// grace, waiting on done (closed when it has exited).
func stopPID(t *testing.T, pid int, done <-chan struct{}, grace time.Duration) {
	t.Helper()
	_ = syscall.Kill(pid, syscall.SIGTERM)
	select {
	case <-done:
		return
	case <-time.After(grace):
	}
	t.Logf("pid %d did not stop on SIGTERM in %s: SIGKILL", pid, grace)
	_ = syscall.Kill(pid, syscall.SIGKILL)
	<-done
}

// stopMarked ends what is left of the processes whose environment has
// the marker (freeact acp, its kernel, JupyterLab's kernels), by PID.
func stopMarked(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	signalled := map[int]bool{}
	for {
		pids := fronttest.ProcessesWith(marker)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			if !signalled[pid] {
				_ = syscall.Kill(pid, syscall.SIGTERM)
				signalled[pid] = true
			} else if time.Now().After(deadline) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if time.Now().After(deadline.Add(10 * time.Second)) {
			t.Errorf("processes left after the test: %v", pids)
			return
		}
		time.Sleep(100 * time.Millisecond) // polling /proc: no event tells of another process's exit
	}
}

// jupyterTurns: the first prompt's code action is approved and runs, the
// second's is rejected (which ends that turn, as in the window), the
// third's sleeps until the chat's Stop button cancels the turn.
const jupyterTurns = `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
  - reply: [{text: "It is 42."}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print('not-to-run')"}}}]
  - reply: [{call: {id: c3, name: ipybox_execute_ipython_cell, args: {code: "import time\nprint('sleeping', flush=True)\ntime.sleep(600)"}}}]
`

// TestJupyterAIRunsAnApprovedCodeAction: in JupyterLab's chat, a prompt
// to the freeact persona gets a code action; it is approved with the
// chat's Allow once button, runs in freeact's kernel, and its output and
// the answer show in the chat. A second prompt's code action, rejected
// with the chat's Reject button, does not run. A third's cell, sleeping,
// is interrupted by the chat's Stop button and the turn ends cancelled.
func TestJupyterAIRunsAnApprovedCodeAction(t *testing.T) {
	venv := jupyterVenv(t)
	chromium := chromiumPath(t)
	bin := freeactBinary(t)
	out := artifacts(t)
	ws, environ, marker := env(t, jupyterTurns)
	t.Cleanup(func() { stopMarked(t, marker) })

	// The persona as docs/acp.md tells users to install it.
	persona, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "scripts", "acp-clients", "jupyter", "freeact_persona.py"))
	if err != nil {
		t.Fatal(err)
	}
	personas := filepath.Join(ws, ".jupyter", "personas")
	if err := os.MkdirAll(personas, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(personas, "freeact_persona.py"), persona, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "freeact.chat"), []byte(`{"messages":[],"users":{},"attachments":{},"metadata":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}

	transcript := filepath.Join(out, "transcript.jsonl")
	_ = os.Remove(transcript)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tokenBytes := make([]byte, 16)
	_, _ = rand.Read(tokenBytes)
	token := hex.EncodeToString(tokenBytes)
	port := freePort(t)
	home := filepath.Join(marker, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	jenv := append(environ,
		"HOME="+home,
		"JUPYTER_CONFIG_DIR="+filepath.Join(home, "jupyter-config"),
		"JUPYTER_DATA_DIR="+filepath.Join(home, "jupyter-data"),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(home, "jupyter-runtime"),
		"JUPYTER_PLATFORM_DIRS=1",
		"FREEACT_BIN="+self,
		relayTarget+"="+bin,
		relayLog+"="+transcript,
	)
	args := []string{
		"--no-browser", "--ip=127.0.0.1", "--port=" + strconv.Itoa(port), "--port-retries=0",
		"--ServerApp.root_dir=" + ws,
		"--IdentityProvider.token=" + token,
		"--PersonaManager.default_persona_id=jupyter-ai-personas::freeact_persona::FreeactAcpPersona",
		// Jupyter AI's MCP server for the chat's notebooks (passed to
		// freeact in session/new) listens on 3001 unless told otherwise.
		"--MCPExtensionApp.mcp_port=" + strconv.Itoa(freePort(t)),
		"--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
	}
	if os.Geteuid() == 0 { // CI runs as root
		args = append(args, "--allow-root")
	}
	// JupyterLab would ask whether to fetch Jupyter's news (no network here).
	news := filepath.Join(home, "jupyter-config", "lab", "user-settings", "@jupyterlab", "apputils-extension")
	if err := os.MkdirAll(news, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(news, "notification.jupyterlab-settings"), []byte(`{"fetchNews": "false"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	lab := exec.Command(filepath.Join(venv, "bin", "jupyter-lab"), args...)
	lab.Dir, lab.Env = ws, jenv
	labLog, err := os.Create(filepath.Join(out, "jupyterlab.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer labLog.Close()
	pr, pw := io.Pipe()
	lab.Stdout, lab.Stderr = labLog, io.MultiWriter(labLog, pw)
	started := time.Now()
	if err := lab.Start(); err != nil {
		t.Fatal(err)
	}
	labDone := make(chan struct{})
	go func() { _ = lab.Wait(); pw.Close(); close(labDone) }()
	t.Cleanup(func() { stopPID(t, lab.Process.Pid, labDone, 30*time.Second) })

	// Ready when the server prints its URL.
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		once := sync.Once{}
		for sc.Scan() {
			if strings.Contains(sc.Text(), base+"/lab") {
				once.Do(func() { close(ready) })
			}
		}
	}()
	select {
	case <-ready:
	case <-labDone:
		t.Fatalf("JupyterLab exited before serving; its log is %s", labLog.Name())
	case <-time.After(2 * time.Minute):
		t.Fatalf("JupyterLab did not serve in 2 minutes; its log is %s", labLog.Name())
	}
	t.Logf("JupyterLab up in %s", time.Since(started).Round(time.Millisecond))

	// Headless Chromium, a profile of its own.
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.UserDataDir(filepath.Join(marker, "chromium")),
		chromedp.WindowSize(1280, 900),
		chromedp.NoSandbox, // the test runs as root on CI
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc) // chromedp kills the browser it started, by its PID, and waits
	tab, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(cancelTab)
	ctx, cancelTime := context.WithTimeout(tab, 4*time.Minute)
	t.Cleanup(cancelTime)

	// A failed step saves what the page showed, from the tab's own
	// context (the step's may have run out).
	save := func(name string) {
		sctx, cancel := context.WithTimeout(tab, 20*time.Second)
		defer cancel()
		png, err := chromedp.Run(sctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Logf("save %s: %v", name, err)
			return
		}
		html, _ := chromedp.Run(sctx, chromedp.OuterHTML(chromedp.CSS("body")))
		_ = os.WriteFile(filepath.Join(out, name+".png"), png, 0o644)
		_ = os.WriteFile(filepath.Join(out, name+".html"), []byte(html), 0o644)
	}
	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			save("failed")
			t.Fatalf("%s: %v (page %s.png/.html, JupyterLab log %s, transcript %s)", what, err, filepath.Join(out, "failed"), labLog.Name(), transcript)
		}
	}

	// text is the text of every element sel matches, now (no waiting).
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`Array.from(document.querySelectorAll(%q)).map(e => e.innerText).join("\n")`, sel)))
		if err != nil {
			save("failed")
			t.Fatalf("read %s: %v", sel, err)
		}
		return s
	}
	const input = chromedp.CSS(".jp-chat-input-container textarea")
	// The first action starts the browser, for as long as tab lives.
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	step("open the chat",
		chromedp.Navigate(base+"/lab/tree/freeact.chat?token="+token),
		chromedp.WaitVisible(input),
	)
	sent := time.Now()
	step("send the prompt",
		chromedp.Click(input),
		chromedp.SendKeys(input, "What is 6*7?"),
		chromedp.KeyEvent("\r"),
	)
	const allow = chromedp.CSS(".jp-jupyter-ai-acp-client-permission-btn-allow-once")
	step("see the approval in the chat", chromedp.WaitVisible(allow))
	asked := time.Since(sent)
	code := text(".jp-jupyter-ai-acp-client-tool-calls")
	save("asked")
	if !strings.Contains(code, "print(6*7)") {
		t.Errorf("the approval does not show the code that runs: %q", code)
	}
	step("approve once", chromedp.Click(allow))
	step("see the answer", chatHas("It is 42."))
	chat := text(".jp-chat-messages-container")
	t.Logf("prompt to approval in the chat: %s", asked.Round(time.Millisecond))
	// The finished call folds its output away: open it, as a user would.
	step("open the finished call", chromedp.Click(chromedp.CSS(".jp-jupyter-ai-acp-client-tool-call-completed summary")))
	output := text(".jp-jupyter-ai-acp-client-tool-call-completed .jp-jupyter-ai-acp-client-tool-call-detail")
	save("answered")
	if strings.TrimSpace(output) != "42" {
		t.Errorf("the finished call shows %q, not the code's output 42; the chat:\n%s", output, chat)
	}

	// The second prompt, its code action rejected in the chat.
	const reject = chromedp.CSS(".jp-jupyter-ai-acp-client-permission-btn-reject-once")
	step("send the second prompt",
		chromedp.Click(input),
		chromedp.SendKeys(input, "Print something else."),
		chromedp.KeyEvent("\r"),
	)
	step("see the second approval", chromedp.WaitVisible(reject))
	if code := text(".jp-jupyter-ai-acp-client-tool-calls"); !strings.Contains(code, "print('not-to-run')") {
		t.Errorf("the second approval does not show its code: %q", code)
	}
	step("reject", chromedp.Click(reject))
	step("see the turn end on the rejection", chatHas("Tool call rejected"))
	step("see the rejected call failed", chromedp.WaitVisible(chromedp.CSS(".jp-jupyter-ai-acp-client-tool-call-failed")))
	save("rejected")
	if chat := text(".jp-chat-messages-container"); strings.Contains(chat, "not-to-run\n") || !strings.Contains(chat, "Reject") {
		t.Errorf("the rejected call ran, or the chat does not say it was rejected:\n%s", chat)
	}

	// The third prompt's cell sleeps; the chat's Stop button cancels the
	// turn and interrupts the cell.
	step("send the third prompt",
		chromedp.Click(input),
		chromedp.SendKeys(input, "Sleep."),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(allow),
		chromedp.Click(allow),
	)
	// The approval showed the code, 'sleeping' in it: that the cell runs
	// is its output reaching the client.
	inTranscript := func(what, want string) {
		t.Helper()
		testenv.Eventually(t, time.Minute, func() error {
			if log, _ := os.ReadFile(transcript); !strings.Contains(string(log), want) {
				return fmt.Errorf("%s: no %s in the transcript %s", what, want, transcript)
			}
			return nil
		})
	}
	inTranscript("the cell did not run", `"rawOutput":"sleeping\n"`)
	step("stop", chromedp.Click(chromedp.CSS(`button[title="Stop generating"]`)))
	inTranscript("the turn did not end cancelled on Stop", `"stopReason":"cancelled"`)
	inTranscript("the cell was not interrupted", `"rawOutput":"sleeping\n---`)
	if log, _ := os.ReadFile(transcript); !strings.Contains(string(log), "KeyboardInterrupt") {
		t.Error("the cell's output does not end in KeyboardInterrupt")
	}
	save("stopped")
	t.Logf("whole test: %s", time.Since(started).Round(time.Millisecond))

	log, _ := os.ReadFile(transcript)
	for _, want := range []string{`"method":"session/prompt"`, `"method":"session/request_permission"`, `"optionId":"allow_once"`, `"optionId":"reject_once"`, `"method":"session/cancel"`, `"stopReason":"end_turn"`} {
		if !strings.Contains(string(log), want) {
			t.Errorf("transcript has no %s", want)
		}
	}
	for i, d := range promptToToolCall(string(log)) {
		t.Logf("prompt %d: session/prompt to the first tool_call: %s", i+1, d.Round(100*time.Microsecond))
	}
}

// chatHas waits until the chat shows text.
func chatHas(text string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(c context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Poll[bool](fmt.Sprintf(`document.querySelector('.jp-chat-messages-container')?.innerText.includes(%q)`, text), chromedp.WithPollingTimeout(2*time.Minute))(c, tg)
		return err
	})
}

// promptToToolCall reads the relay's transcript: for each session/prompt,
// the time to the first tool_call the agent sent after it.
func promptToToolCall(log string) []time.Duration {
	var out []time.Duration
	var at float64
	waiting := false
	for _, line := range strings.Split(log, "\n") {
		secs, rest, ok := strings.Cut(strings.TrimSpace(line), "s ")
		if !ok {
			continue
		}
		ts, err := strconv.ParseFloat(secs, 64)
		if err != nil {
			continue
		}
		switch {
		case strings.HasPrefix(rest, "client->agent") && strings.Contains(rest, `"method":"session/prompt"`):
			at, waiting = ts, true
		case waiting && strings.HasPrefix(rest, "agent->client") && strings.Contains(rest, `"sessionUpdate":"tool_call"`):
			out = append(out, time.Duration((ts-at)*float64(time.Second)))
			waiting = false
		}
	}
	return out
}
