package agent_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/agent/model/provider"
	"github.com/freeact/desktop/agent/shell"
	"github.com/freeact/desktop/internal/testenv"
	"github.com/freeact/desktop/kernel"
)

// corpusCase is one entry of testdata/shell_corpus.yaml: cells a model
// sends, one tool call per model turn, that try to start a process.
type corpusCase struct {
	Name  string   `yaml:"name"`
	Cells []string `yaml:"cells"`
	// Want is a substring of the cells' output when everything is approved.
	Want string `yaml:"want"`
	// Runs false: nothing runs, so nothing is asked (e.g. %load, which only
	// fills the next input).
	Runs *bool `yaml:"runs"`
	// Blocked: the route is refused without asking, because what it would
	// run cannot be shown; nothing runs even when everything is approved.
	Blocked bool `yaml:"blocked"`
	// Only names the one kernel generation the case applies to
	// ("ipykernel7" or "ipykernel6"), for routes the other lacks.
	Only string `yaml:"only"`
}

func (c corpusCase) runs() bool { return c.Runs == nil || *c.Runs }

// TestShellCorpus runs every case of testdata/shell_corpus.yaml through a
// real agent and kernel (ipykernel 7 and Debian's 6.17), the model faked at
// the wire. Every process a case starts is recorded by wrapper programs
// first on the kernel's PATH (probe, and the interpreters of script cells),
// which log their argv and stdin. Each case runs twice in the same kernel:
//   - code actions approved, every shell request rejected: at least one
//     request is asked and nothing runs;
//   - everything approved: what ran is exactly what was shown (each probe
//     command shown ran with those arguments, each script shown ran with
//     the interpreter shown and that text, and nothing else ran).
func TestShellCorpus(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "shell_corpus.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	if err := yaml.Unmarshal(data, &cases); err != nil {
		t.Fatalf("shell_corpus.yaml: %v", err)
	}
	for _, gen := range []struct {
		name   string
		server func(t *testing.T) *kernel.Server
	}{
		{"ipykernel7", func(t *testing.T) *kernel.Server { return server(t) }},
		{"ipykernel6", func(t *testing.T) *kernel.Server { return ownServer(t, testenv.OldPython(t)) }},
	} {
		t.Run(gen.name, func(t *testing.T) {
			rec := newRecorder(t)
			ws := workspace(t, `{"kernel_env": {"PATH": "`+rec.bin+string(os.PathListSeparator)+os.Getenv("PATH")+`"}, "enable_persistence": false}`)
			m := &switchModel{}
			a := started(t, ws, agent.WithKernelServer(gen.server(t)), agent.WithModel(m))
			for _, c := range cases {
				if c.Only != "" && c.Only != gen.name {
					continue
				}
				t.Run(c.Name, func(t *testing.T) {
					for _, approve := range []bool{false, true} {
						rec.reset(t)
						asks, out := playCase(t, a, m, c, approve)
						ran := rec.runs(t)
						if t.Failed() {
							return
						}
						if err := checkCase(c, approve, asks, ran, out); err != nil {
							t.Errorf("shell requests answered %s: %v\nasked:%s\nran:%s\noutput:\n%s",
								map[bool]string{true: "yes", false: "no"}[approve], err, describeAsks(asks), describeRuns(ran), out)
							return
						}
					}
				})
			}
		})
	}
}

// ownServer starts a Jupyter server from python for the test.
func ownServer(t *testing.T, python string) *kernel.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	s, err := kernel.StartServer(ctx, kernel.ServerOptions{Python: python, Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("start Jupyter server: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// corpusScenario is a model turn that sends cells, one tool call per
// reply, then says it is done.
func corpusScenario(name string, cells []string) modeltest.Scenario {
	var sc modeltest.Scenario
	sc.Name, sc.AllowUnplayed = name, true
	for i, code := range cells {
		sc.Turns = append(sc.Turns, modeltest.Turn{Reply: []modeltest.ReplyPart{{Call: &modeltest.CallReply{
			ID: fmt.Sprintf("c%d", i+1), Name: agent.ExecuteTool, Args: map[string]any{"code": code},
		}}}})
	}
	sc.Turns = append(sc.Turns, modeltest.Turn{Reply: []modeltest.ReplyPart{{Text: "done"}}})
	return sc
}

// playCase sends the case's cells as one turn (a tool call per model reply)
// and answers shell requests with approve. It returns the shell requests and
// the cells' output.
func playCase(t *testing.T, a *agent.Agent, m *switchModel, c corpusCase, approve bool) ([]agent.ShellAction, string) {
	t.Helper()
	m.use(t, corpusScenario(c.Name, c.Cells))
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	var asks []agent.ShellAction
	var out strings.Builder
	for ev := range a.Stream(ctx, agent.Text("Run the cells.")) {
		switch e := ev.(type) {
		case *agent.ApprovalRequest:
			switch call := e.ToolCall.(type) {
			case agent.CodeAction:
				e.Answer(agent.Once, "")
			case agent.ShellAction:
				asks = append(asks, call)
				if want := wantDisplay(call); e.Display != want {
					t.Errorf("approval shows %q for %+v, want %q", e.Display, call, want)
				}
				e.Approve(approve)
			default:
				t.Errorf("unexpected approval request for %s", call.Name())
				e.Approve(false)
			}
		case *agent.CodeExecutionOutput:
			out.WriteString(e.Text + "\n")
		case *agent.Failed:
			t.Errorf("turn failed: %s", e.Error)
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("the turn did not end in time; output so far:\n%s", out.String())
	}
	return asks, out.String()
}

// wantDisplay is what the approval must show: the command, or for a script
// the program on a "#!" line and the whole script.
func wantDisplay(c agent.ShellAction) string {
	if c.Interpreter != "" {
		return "#!" + c.Interpreter + "\n" + c.Command
	}
	return c.Command
}

// checkCase compares what was asked with what ran.
func checkCase(c corpusCase, approved bool, asks []agent.ShellAction, ran []recordedRun, out string) error {
	if !c.runs() {
		if len(asks) > 0 || len(ran) > 0 {
			return errors.New("the case should neither ask nor run anything")
		}
		return nil
	}
	if c.Blocked {
		if len(ran) > 0 {
			return errors.New("a refused route ran")
		}
		return nil
	}
	if len(asks) == 0 {
		return errors.New("nothing was asked")
	}
	if !approved {
		if len(ran) > 0 {
			return errors.New("processes ran although every shell request was rejected")
		}
		return nil
	}
	shown, err := shownRuns(asks)
	if err != nil {
		return err
	}
	got := map[string]bool{}
	for _, r := range ran {
		// An interpreter a shown command line starts takes whatever input
		// that command line gives it.
		k, loose := r.key(), recordedRun{argv: r.argv, script: true, anyStdin: true}.key()
		got[k] = true
		if r.script {
			got[loose] = true
		}
		if !shown[k] && !(r.script && shown[loose]) && !shown[wholeLine+r.argv[0]] {
			return fmt.Errorf("ran but never shown: %s", k)
		}
	}
	for k := range shown {
		if !got[k] && !strings.HasPrefix(k, wholeLine) {
			return fmt.Errorf("shown and approved but did not run: %s", k)
		}
	}
	if c.Want != "" && !strings.Contains(out, c.Want) {
		return fmt.Errorf("output lacks %q", c.Want)
	}
	return nil
}

// wholeLine prefixes the key of a program an opaque line names.
const wholeLine = "opaque line runs "

// shownRuns lists, as recordedRun keys, the recorded programs that the
// approved requests show: probe commands (also inside shown bash scripts
// and interpreter command lines) and interpreters fed a script.
func shownRuns(asks []agent.ShellAction) (map[string]bool, error) {
	shown := map[string]bool{}
	addProbes := func(src string) error {
		split := shell.Split(src)
		if split.Opaque {
			// Asked as a whole: any recorded program the line names may
			// run, with whatever the line gives it.
			for _, w := range strings.FieldsFunc(src, func(r rune) bool { return strings.ContainsRune(" \t\n;|&()'\"", r) }) {
				if slices.Contains(recorded, path.Base(w)) {
					shown[wholeLine+path.Base(w)] = true
				}
			}
			return nil
		}
		for _, cmd := range split.Commands {
			argv, err := literalFields(cmd)
			if err != nil {
				return fmt.Errorf("shown command %q: %w", cmd, err)
			}
			switch {
			case len(argv) == 0:
			case argv[0] == "probe":
				shown[recordedRun{argv: argv}.key()] = true
			case slices.Contains(recorded, argv[0]):
				shown[recordedRun{argv: argv, script: true, anyStdin: true}.key()] = true
			}
		}
		return nil
	}
	for _, a := range asks {
		if a.Interpreter == "" {
			if err := addProbes(a.Command); err != nil {
				return nil, err
			}
			continue
		}
		argv, err := literalFields(a.Interpreter)
		if err != nil {
			return nil, fmt.Errorf("interpreter %q: %w", a.Interpreter, err)
		}
		script := a.Command
		if !strings.HasSuffix(script, "\n") {
			script += "\n"
		}
		argv[0] = path.Base(argv[0])
		shown[recordedRun{argv: argv, stdin: script, script: true}.key()] = true
		if err := addProbes(a.Interpreter); err != nil {
			return nil, err
		}
		if (argv[0] == "bash" || argv[0] == "sh") && !slices.ContainsFunc(argv[1:], isCommandOption) {
			if err := addProbes(a.Command); err != nil {
				return nil, err
			}
		}
	}
	return shown, nil
}

// isCommandOption reports a shell option word that includes -c: the shell
// then runs its argument, not the script on stdin.
func isCommandOption(arg string) bool {
	return strings.HasPrefix(arg, "-") && !strings.HasPrefix(arg, "--") && strings.Contains(arg, "c")
}

// literalFields returns the argv of a simple command as bash would build
// it (quotes removed, no expansions).
func literalFields(cmd string) ([]string, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return nil, err
	}
	if len(f.Stmts) != 1 {
		return nil, fmt.Errorf("%d statements", len(f.Stmts))
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		return nil, nil
	}
	return expand.Fields(&expand.Config{Env: expand.ListEnviron(os.Environ()...)}, call.Args...)
}

func describeAsks(asks []agent.ShellAction) string {
	var b strings.Builder
	for _, a := range asks {
		fmt.Fprintf(&b, "\n  %q", a.Command)
		if a.Interpreter != "" {
			fmt.Fprintf(&b, " (script for %q)", a.Interpreter)
		}
		if a.Opaque {
			b.WriteString(" (opaque)")
		}
	}
	return b.String()
}

func describeRuns(ran []recordedRun) string {
	var b strings.Builder
	for _, r := range ran {
		b.WriteString("\n  " + r.key())
	}
	return b.String()
}

// recorder makes the programs that log how they were started.
type recorder struct {
	bin, log string
}

// recorded are the wrapper programs: probe, which only logs, and the
// interpreters of script cells, which log their stdin too and then run the
// real program, when there is one, on it.
var recorded = []string{"probe", "bash", "sh", "zsh", "perl", "ruby", "python", "python2", "python3", "pypy", "node"}

func newRecorder(t *testing.T) *recorder {
	t.Helper()
	dir := t.TempDir()
	r := &recorder{bin: filepath.Join(dir, "bin"), log: filepath.Join(dir, "log")}
	for _, d := range []string{r.bin, r.log} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range recorded {
		// The system's program, not a version manager's shim (a script
		// that would run the wrapped bash many times over).
		real := ""
		for _, dir := range []string{"/usr/bin", "/bin"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				real = filepath.Join(dir, name)
				break
			}
		}
		// bash -p: no BASH_ENV or exported functions of the caller.
		script := fmt.Sprintf(`#!/bin/bash -p
d=%q/"$(date +%%s%%N)-$$"
mkdir "$d" || exit 97
pwd > "$d/cwd"
if [ %q = probe ]; then
	printf '%%s\0' probe "$@" > "$d/argv"
	echo "probe ran: $*"
	exit 0
fi
cat > "$d/stdin"
printf '%%s\0' %q "$@" > "$d/argv"
[ -n %q ] && exec %q "$@" < "$d/stdin"
exit 0
`, r.log, name, name, real, real)
		if err := os.WriteFile(filepath.Join(r.bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func (r *recorder) reset(t *testing.T) {
	t.Helper()
	entries, err := os.ReadDir(r.log)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(r.log, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}

// recordedRun is one logged start of a wrapper program.
type recordedRun struct {
	argv     []string
	stdin    string
	script   bool // an interpreter (stdin recorded)
	anyStdin bool // ...whose stdin is not compared
}

func (r recordedRun) key() string {
	k := fmt.Sprintf("%q", r.argv)
	switch {
	case r.anyStdin:
		k += " <<< (any)"
	case r.script:
		k += fmt.Sprintf(" <<< %q", r.stdin)
	}
	return k
}

func (r *recorder) runs(t *testing.T) []recordedRun {
	t.Helper()
	entries, err := os.ReadDir(r.log)
	if err != nil {
		t.Fatal(err)
	}
	var out []recordedRun
	for _, e := range entries {
		dir := filepath.Join(r.log, e.Name())
		raw, err := os.ReadFile(filepath.Join(dir, "argv"))
		if err != nil {
			t.Errorf("incomplete record %s: %v", dir, err)
			continue
		}
		run := recordedRun{argv: strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")}
		if stdin, err := os.ReadFile(filepath.Join(dir, "stdin")); err == nil {
			run.stdin, run.script = string(stdin), true
		}
		out = append(out, run)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out
}

// switchModel is a model.Model whose wire-level fake server is replaced for
// each case, so cases can end anywhere without upsetting the next one.
type switchModel struct {
	mu  sync.Mutex
	cur model.Model
}

func (s *switchModel) use(t *testing.T, sc modeltest.Scenario) {
	t.Helper()
	fake := modeltest.NewGemini(t, sc)
	m, err := provider.New(context.Background(), "google:gemini-3-flash-preview", provider.Options{BaseURL: fake.URL(), APIKey: "fake-key"})
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.cur = m
	s.mu.Unlock()
}

func (s *switchModel) Name() string { return "google:gemini-3-flash-preview" }

func (s *switchModel) Stream(ctx context.Context, req *model.Request) iter.Seq2[model.Chunk, error] {
	s.mu.Lock()
	m := s.cur
	s.mu.Unlock()
	return m.Stream(ctx, req)
}
