//go:build journey

package journey

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/testenv"
)

// Issue 34, items 12, 13, 14, 17 and 18, in one workspace:
//   - 17: "Always" for a shell command inside a code action saves a rule
//     in .freeact/permissions.json; that write is freeact's, not the
//     action's: its changes list the three files the code wrote, and
//     reverting the turn keeps the rule.
//   - 13: a remote image in the answer is a link with the app's icon, named
//     in words ("…: opens in your browser"), with no emoji.
//   - 12: a revert that kept a file changed by hand since says "kept" for
//     it instead of striking it through with the files it took back.
//   - 18: a model failure on a Gemini model sends the user to Settings →
//     Model, whose max output tokens field gives Gemini's default, not
//     "16,384 for Claude".
//   - 14: the conversation open in another freeact process (a terminal
//     freeact run on it) says "Open in another window", not "Kernel
//     failed".
func TestIssue34WindowMarks(t *testing.T) {
	atSizesOn(t, "testdata/issue34-window.yaml", func(t *testing.T, app *App, ws string) {
		// 17: Always for the shell command, from the card's own editor.
		app.Send("Write the files")
		app.WaitFor(Role("landmark", "Approval request"))
		app.Key("Return") // the code action: yes
		app.WaitFor(Text("Run this shell command?"))
		app.WaitFor(Text("touch made.txt"))
		app.Key("a")
		app.WaitFor(Field("Always allow calls matching"))
		app.Shot("always-for-the-shell-command")
		app.Click(Button("Save rule and run"))
		app.WaitFor(Text("The files are written."))
		app.WaitGone(Role("landmark", "Approval request"))
		rules := filepath.Join(ws, ".freeact", "permissions.json")
		ruleSaved := func() bool { b, err := os.ReadFile(rules); return err == nil && strings.Contains(string(b), "touch") }
		if !ruleSaved() {
			t.Fatalf("Always saved no rule for touch in %s", rules)
		}
		// The action's and the turn's lists of changes: the three files.
		app.WaitFor(Query{Role: "list item", Name: "made.txt"})
		app.Shot("changes-without-the-rule")
		var files []string
		for _, n := range app.FindAll(Role("list item", "")) {
			if strings.Contains(n.Name, "permissions.json") {
				t.Errorf("the changes list %q: freeact's own write of the rule shows as the action's change", n.Name)
			}
			if strings.Contains(n.Name, ".txt") && !strings.HasPrefix(n.Name, "$") {
				files = append(files, n.Name)
			}
		}
		if len(files) != 6 {
			t.Errorf("the changes lists show %q, want data.txt, made.txt and other.txt for the action and for the turn", files)
		}

		// 13: the remote image's link, named in words.
		const linkName = "image: chart (remote, not loaded): opens in your browser"
		link := app.WaitFor(Query{Role: "link", Name: linkName, Exact: true})
		if emoji := regexp.MustCompile(`\p{So}`); emoji.MatchString(link.Name) || emoji.MatchString(link.Text) {
			t.Errorf("the remote image's link has a symbol a font must have: name %q, text %q", link.Name, link.Text)
		}
		app.Hover(Query{Role: "link", Name: linkName, Exact: true})
		app.Shot("remote-image-link")

		// 12: data.txt edited by hand; the revert keeps it and says so.
		writeFile(t, filepath.Join(ws, "data.txt"), "edited by hand\n")
		app.Click(Button("Revert this turn"))
		app.WaitFor(Text("Changed again since"))
		app.Click(Button("Revert 2 files"))
		app.WaitFor(Text("Left as they are (changed since): data.txt"))
		app.WaitGone(Role("alert", "Revert this turn?"))
		app.WaitFor(Text("kept: the revert left it as it is"))
		app.Shot("reverted-with-data-kept")
		if got := readFile(t, filepath.Join(ws, "data.txt")); got != "edited by hand\n" {
			t.Errorf("data.txt is %q after the revert, want the hand edit kept", got)
		}
		for _, name := range []string{"other.txt", "made.txt"} {
			if _, err := os.Stat(filepath.Join(ws, name)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s, which the turn created, is still there: %v", name, err)
			}
		}
		if !ruleSaved() {
			t.Error("reverting the turn took back the rule saved with Always")
		}
		// The note is on data.txt's rows, and only there.
		for _, n := range app.FindAll(Role("list item", "")) {
			if strings.Contains(n.Name, "data.txt") != strings.Contains(n.Text, "kept: the revert left it as it is") {
				t.Errorf("the changes list's row %q (text %q): want the kept note on data.txt's rows alone", n.Name, n.Text)
			}
		}

		// 18: a provider error on the Gemini model points to the Model tab.
		app.Send("Summarise the project")
		app.WaitFor(Text(`The provider does not know the model "gemini-3-flash-preview" (HTTP 404).`))
		app.WaitFor(Text("Check the model name in Settings → Model"))
		app.Shot("provider-error")
		app.Click(Button("Model settings"))
		app.WaitFor(Role("dialog", "Settings"))
		// The field's help, which a screen reader reads with it.
		const gemini = "Unset: the model's own limit (Gemini's default)."
		maxTokens := app.WaitFor(Field("Max output tokens"))
		app.Shot("model-tab")
		if !strings.HasSuffix(maxTokens.Description, gemini) || strings.Contains(maxTokens.Description, "16,384") {
			t.Errorf("Max output tokens of a Gemini model is described %q, want it to end %q", maxTokens.Description, gemini)
		}
		app.Key("Escape")
		app.WaitGone(Role("dialog", "Settings"))

		// 14: the first conversation, held by a terminal freeact run.
		sessions, _ := filepath.Glob(filepath.Join(ws, ".freeact", "sessions", "*", "main.jsonl"))
		if len(sessions) != 1 {
			t.Fatalf("%d sessions on disk, want the one conversation", len(sessions))
		}
		sid := filepath.Base(filepath.Dir(sessions[0]))
		// The window keeps a conversation it leaves running (issue 39)
		// unless the live-kernel limit stops it: with a limit of 1 it lets
		// go of the first, which the terminal then holds.
		setAppSetting(t, app, "max_live_kernels", 1)
		app.Click(Button("Sessions"))
		app.Click(Button("+ New conversation"))
		app.WaitFor(Text("What should we work on?"))
		app.WaitFor(Text("Kernel ready"))
		pid := holdInTerminal(t, app, ws, sid)
		app.Click(Button("Sessions"))
		app.Click(Query{Role: "push button", Name: "Write the files"})
		app.WaitFor(Text(fmt.Sprintf("open in another freeact window, pid %d", pid)))
		app.WaitFor(Text("Open in another window"))
		app.Shot("open-in-another-window")
		if n, ok := app.Find(Text("Kernel failed")); ok {
			t.Errorf("the conversation open in the terminal shows %q", n.Text)
		}
	})
}

// holdInTerminal opens the session in a terminal freeact run of the
// app's workspace, as a person would in another window, and returns its
// pid once it holds the session (it asks for a request, or offers to replay
// the cells). Its stdin closes, and it quits, when the test ends.
func holdInTerminal(t *testing.T, app *App, ws, sid string) int {
	t.Helper()
	bin := envOr("FREEACT_BIN", filepath.Join(testenv.RepoRoot(t), "build", "bin", "freeact"))
	cmd := exec.Command(bin, "run", "--workspace", ws, "--session-id", sid)
	cmd.Env = withEnv(os.Environ(), []string{
		"HOME=" + app.Home,
		"XDG_CONFIG_HOME=" + filepath.Join(app.Home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(app.Home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(app.Home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(app.Home, ".local", "state"),
		"GOOGLE_API_KEY=",
		"GEMINI_API_KEY=journey-key",
		"GOOGLE_GEMINI_BASE_URL=" + app.Model.URL,
	})
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errBuf lockedBuffer
	cmd.Stderr = &errBuf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s run: %v", bin, err)
	}
	exited := make(chan struct{})
	var mu sync.Mutex
	var printed strings.Builder
	holds := make(chan struct{})
	go func() {
		r := bufio.NewReader(out)
		var once sync.Once
		for {
			line, err := r.ReadString('\n')
			mu.Lock()
			printed.WriteString(line)
			s := printed.String()
			mu.Unlock()
			if strings.Contains(s, "type a request") || strings.Contains(s, "The kernel is fresh") {
				once.Do(func() { close(holds) })
			}
			if err != nil {
				_, _ = io.Copy(io.Discard, r)
				return
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = in.Close() // end of input: the terminal quits
		select {
		case <-exited:
		case <-time.After(Timeout):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	select {
	case <-holds:
	case <-exited:
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("the terminal freeact run ended before it held the session:\n%s%s", printed.String(), errBuf.String())
	case <-time.After(Timeout):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("the terminal freeact run did not open the session within %s:\n%s%s", Timeout, printed.String(), errBuf.String())
	}
	return cmd.Process.Pid
}

// setAppSetting sets key in the app's settings.json (Settings reads it
// whenever it needs the value), keeping what else it holds.
func setAppSetting(t *testing.T, app *App, key string, value any) {
	t.Helper()
	file := filepath.Join(app.Home, ".config", "freeact", "settings.json")
	settings := map[string]any{}
	if data, err := os.ReadFile(file); err == nil {
		if err := json.Unmarshal(data, &settings); err != nil {
			t.Fatalf("read %s: %v", file, err)
		}
	}
	settings[key] = value
	data, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
