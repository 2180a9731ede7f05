package terminal

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/freeact/desktop/agent/cells"
	"github.com/freeact/desktop/agent/mcpglue"
	"io"
	"iter"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/approval"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/worktree"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/internal/appdirs"
	"github.com/freeact/desktop/internal/redact"
	"github.com/freeact/desktop/internal/visible"
	"github.com/freeact/desktop/kernel"
)

// Exit statuses of `freeact run --prompt`.
const (
	exitDone      = 0 // the turn finished with an answer
	exitFailed    = 1 // the turn (or the start) failed
	exitRejected  = 3 // a tool call was rejected
	exitCancelled = 4 // the turn was cancelled (Ctrl-C)
	exitCut       = 5 // the answer was cut off at the output token limit
)

// RunInit is `freeact init`: .freeact/ in a workspace, made where missing.
func RunInit(_ context.Context, args []string, _ adapter.Build, s adapter.Streams) error {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	ws := fs.String("workspace", ".", "the workspace `directory`")
	if err := adapter.ParseFlags(fs, args, s.Err); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return adapter.UsageError{Err: fmt.Errorf("init takes no arguments, got %q (use --workspace DIR)", fs.Args())}
	}
	dir, err := filepath.Abs(*ws)
	if err != nil {
		return fmt.Errorf("workspace %s: %w", *ws, err)
	}
	if err := config.Init(dir); err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "Workspace ready: %s\n", filepath.Join(dir, config.FreeactDir))
	return nil
}

type runFlags struct {
	workspace, sessionID, prompt, logLevel, sandboxConfig string
	worktree                                              string
	json, skipPermissions, sandbox, fork, auto            bool
}

// RunRun is `freeact run`: the conversation in the terminal, one request
// with --prompt, the JSON protocol with --json.
func RunRun(ctx context.Context, args []string, b adapter.Build, s adapter.Streams) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var f runFlags
	fs.StringVar(&f.workspace, "workspace", ".", "the workspace `directory`")
	fs.StringVar(&f.sessionID, "session-id", "", "resume the session with this `id`")
	fs.BoolVar(&f.fork, "fork", false, "with --session-id: continue in a copy of the session (for one open in another window)")
	fs.StringVar(&f.prompt, "prompt", "", "run this one request and exit: status 0 answered, 1 failed, 3 rejected, 4 cancelled")
	fs.BoolVar(&f.json, "json", false, "write one JSON event a line; questions (approvals, MCP forms, ...) carry an id and are answered by JSON lines on stdin, approvals also by y, n, a or s (docs/behaviour.md)")
	fs.BoolVar(&f.skipPermissions, "skip-permissions", false, "approve every tool call without asking")
	fs.BoolVar(&f.auto, "auto", false, "auto mode: code runs in the sandbox without asking, a model judge decides other calls the rules leave open (/auto toggles it)")
	fs.StringVar(&f.logLevel, "log-level", "warn", "log `level`: debug, info, warn or error")
	fs.BoolVar(&f.sandbox, "sandbox", false, "run code in the sandbox (sandbox-runtime): no network, writes only in the workspace")
	fs.StringVar(&f.sandboxConfig, "sandbox-config", "", "an srt settings `file` replacing the default sandbox restrictions (implies --sandbox)")
	fs.StringVar(&f.worktree, "worktree", "", "run in the git worktree `NAME` of the workspace's repository (created on a new branch freeact/NAME when missing; freeact worktree reviews, merges and removes it)")
	if err := adapter.ParseFlags(fs, args, s.Err); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return adapter.UsageError{Err: fmt.Errorf("run takes no arguments, got %q (use --prompt TEXT)", fs.Args())}
	}
	if f.auto && f.skipPermissions {
		return adapter.UsageError{Err: errors.New("--auto and --skip-permissions exclude each other: auto mode still asks what its layers do not allow")}
	}
	if f.fork && f.sessionID == "" {
		return adapter.UsageError{Err: errors.New("--fork copies the session --session-id names: give both")}
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return adapter.UsageError{Err: fmt.Errorf("--log-level %q: use debug, info, warn or error", f.logLevel)}
	}
	logger := slog.New(slog.NewTextHandler(s.Err, &slog.HandlerOptions{Level: level}))
	var wt *worktree.Manifest
	if f.worktree != "" {
		var err error
		if wt, err = runWorktree(ctx, f, b, s); err != nil {
			return err
		}
		f.workspace = wt.Workdir()
	}
	// Libraries that print with the standard logger (genai does) go to the
	// log at debug level instead of into the conversation.
	log.SetOutput(adapter.SlogWriter{L: logger})
	defer log.SetOutput(os.Stderr)

	// The terminal exists before the agent starts, so that MCP servers'
	// sign-ins and forms during the start are asked in it; Ctrl-C is
	// taken over once the agent runs.
	sigs := make(chan os.Signal, 2)
	t := newTerminal(s, f.json, sigs)
	a, err := newTerminalAgent(ctx, f, b.Dirs, logger, s, t)
	if _, busy := adapter.BusySession(err); busy {
		return fmt.Errorf("%w\n`freeact run --session-id %s --fork` continues in a copy; `freeact export --session %s` shows it", err, f.sessionID, f.sessionID)
	}
	if err != nil {
		return err
	}
	defer func() {
		if err := a.Stop(); err != nil {
			logger.Warn("stop agent", "err", err)
		}
	}()

	if wt != nil {
		if err := adapter.Worktrees(b.Dirs).SetConversation(wt, a.SessionID()); err != nil {
			logger.Warn("record the worktree's conversation", "err", err)
		}
	}
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	if t.recover(ctx, a, f.prompt == "" && !f.json) {
		return nil
	}
	if f.prompt == "" && t.offerReplay(ctx, a) {
		return nil
	}
	if f.prompt != "" {
		request, err := t.expand(ctx, a, f.prompt)
		if err != nil {
			return err
		}
		code := t.turn(ctx, a, request)
		if err := t.inputError(); err != nil {
			return err // an approval answer could not be read
		}
		if code != exitDone {
			return adapter.ExitStatus(code)
		}
		return nil
	}
	return t.loop(ctx, a)
}

// newTerminalAgent opens the workspace (scaffolding what is missing) and
// starts an agent over it.
func newTerminalAgent(ctx context.Context, f runFlags, dirs appdirs.Dirs, logger *slog.Logger, s adapter.Streams, t *terminal) (*agent.Agent, error) {
	ws, err := adapter.OpenWorkspace(f.workspace, adapter.KeyStore(dirs), dirs, logger)
	if err != nil {
		return nil, err
	}
	cfg := ws.Config
	if f.sandbox || f.sandboxConfig != "" {
		cfg.Options.Sandbox = true
	}
	if f.sandboxConfig != "" {
		p, err := filepath.Abs(f.sandboxConfig)
		if err != nil {
			return nil, fmt.Errorf("--sandbox-config %s: %w", f.sandboxConfig, err)
		}
		cfg.Options.SandboxConfig = &p
	}
	// MCP servers' sign-ins and forms are asked in the terminal: in
	// --json mode as questions (questions.go).
	signIn := terminalSignIn(s)
	if t.json {
		signIn.Browser = t.qs.signInJSON
	}
	forms := &terminalForms{t: t}
	var opts []agent.Option
	if f.skipPermissions {
		opts = append(opts, agent.WithSkipPermissions())
	}
	if f.auto {
		opts = append(opts, agent.WithApprovalMode(approval.Auto))
	}
	starting := func() {
		if f.json {
			return
		}
		if f.auto {
			fmt.Fprint(s.Err, autoText(cfg.Options.Sandbox))
		}
		where := ""
		switch {
		case cfg.Options.Sandbox:
			where = " (sandboxed)"
		case cfg.Options.JupyterURL != nil && *cfg.Options.JupyterURL != "":
			// The one redactor: no password; and no query at all here.
			server, _, _ := strings.Cut(redact.URL(*cfg.Options.JupyterURL), "?")
			where = " on the Jupyter server " + server
		}
		fmt.Fprintf(s.Err, "Starting the kernel for %s%s…\n", ws.Dir, where)
	}
	// The terminal cannot ask for a missing key: CheckModel says so
	// before the kernel starts.
	return adapter.StartAgent(ctx, adapter.AgentSpec{
		Workspace: ws, Config: cfg, SessionID: f.sessionID, Fork: f.fork, CheckModel: true,
		Warn: func(w config.Warning) { fmt.Fprintf(s.Err, "warning: %s\n", w) },
		Forked: func(id string) {
			fmt.Fprintf(s.Err, "Continuing in %s, a copy of session %s.\n", id, f.sessionID)
		},
		Starting: starting,
		Progress: func(p kernel.Progress) { fmt.Fprintln(s.Err, adapter.ProgressText(p)) },
		SignIn:   signIn, Forms: forms.ask, Options: opts,
	})
}

// terminal renders agent events for a person (or, with --json, for a
// script) and reads prompts, approvals and input from stdin.
type terminal struct {
	out, errw  io.Writer
	lines      chan string   // stdin lines; closed at end of input
	want       chan struct{} // asks the reader for the next line
	asked      atomic.Bool   // a line was asked for and not yet taken
	in         io.Reader
	inputErr   error         // why reading stdin stopped early; set before inputDone closes
	inputDone  chan struct{} // closed when reading stdin stopped
	interrupts <-chan os.Signal
	json       bool
	style      style
	// qs asks the questions of --json mode; outMu keeps its events and
	// the turn's from mixing on a line.
	qs      *questions
	outMu   sync.Mutex
	pending string // a request read while a question was asked (--json)

	// hold is the interactive terminal, held by its one reader at a time
	// (terminal_hold.go); holder names who has it.
	hold      chan struct{}
	holdMu    sync.Mutex
	holder    string
	waiters   int           // askers waiting for hold
	preempt   chan struct{} // asks the prompt to give way to a question
	preempted atomic.Bool

	agentID    string // whose output was printed last
	lineStart  bool
	thinking   bool
	streamed   bool // a Response's chunks were printed
	turnTokens [3]int
	turnCost   float64
	priced     bool // some call of the turn had a price
	turnFiles  int  // files changed in the turn
	session    *agent.SessionUsage
	// The turn's calls of auto mode's judge (automode.go).
	judgeCalls  int
	judgeTokens [2]int
	judgeCost   float64
	judgePriced bool
}

func newTerminal(s adapter.Streams, jsonMode bool, interrupts <-chan os.Signal) *terminal {
	t := &terminal{
		out: s.Out, errw: s.Err, lines: make(chan string), want: make(chan struct{}, 1), in: s.In,
		inputDone: make(chan struct{}), interrupts: interrupts, json: jsonMode,
		hold: make(chan struct{}, 1), preempt: make(chan struct{}, 1),
		style: newStyle(s.Out), agentID: agent.MainAgent, lineStart: true,
	}
	t.qs = newQuestions(t)
	// Lines are read only when asked for, so that nothing reads the
	// terminal while an editor runs on it (the e answer).
	go func() {
		sc := bufio.NewScanner(s.In)
		sc.Buffer(make([]byte, 64*1024), MaxInputLine)
		for range t.want {
			if !sc.Scan() {
				break
			}
			t.lines <- sc.Text()
		}
		switch err := sc.Err(); {
		case errors.Is(err, bufio.ErrTooLong):
			t.inputErr = fmt.Errorf("read standard input: a line is longer than %d MiB, the most freeact reads as one line; put long text in a file and name the file in the request", MaxInputLine>>20)
		case err != nil:
			t.inputErr = fmt.Errorf("read standard input: %w", err)
		}
		close(t.inputDone)
		close(t.lines)
	}()
	return t
}

// MaxInputLine is the longest line of stdin the terminal reads: a request,
// an approval answer or a line for input().
const MaxInputLine = 16 << 20

// inputError returns why reading stdin stopped, when it stopped for an
// error (a line too long) rather than at the end of input.
func (t *terminal) inputError() error {
	select {
	case <-t.inputDone:
		return t.inputErr
	default:
		return nil
	}
}

// loop reads requests until q, end of input or a second Ctrl-C.
func (t *terminal) loop(ctx context.Context, a *agent.Agent) error {
	if !t.json {
		fmt.Fprintf(t.out, "%s\n", t.style.dim(fmt.Sprintf("freeact · session %s · type a request; /compact, /diff, /undo, /grants; q quits; Ctrl-C cancels a turn", a.SessionID())))
	}
	for {
		if !t.json {
			fmt.Fprint(t.out, t.style.bold("> "))
		}
		line, ok := t.pending, true
		switch {
		case line != "":
			t.pending = ""
		case t.json:
			line, ok = t.qs.request(ctx, t.interrupts)
		default:
			line, ok = t.readRequest(ctx)
		}
		if !ok {
			if !t.json {
				fmt.Fprintln(t.out)
			}
			return t.inputError()
		}
		line = strings.TrimSpace(line)
		switch {
		case line == "":
			continue
		case line == "q" || line == "quit" || line == "exit":
			return nil
		case line == "/compact" || line == "/diff" || line == "/undo":
			t.command(ctx, a, line)
			continue
		case line == "/grants" || strings.HasPrefix(line, "/revoke"):
			t.grants(a, line)
			continue
		case line == "/auto" || strings.HasPrefix(line, "/auto "):
			t.autoCommand(a, line)
			continue
		}
		// /server:prompt and @server:uri reach MCP servers.
		request, err := t.expand(ctx, a, line)
		if err != nil {
			// The error may quote the server: one line.
			fmt.Fprintln(t.errw, t.style.red(visible.Line(err.Error())))
			continue
		}
		if t.turn(ctx, a, request) == -1 || t.offerReplay(ctx, a) {
			return nil
		}
	}
}

// offerReplay asks whether to restore a kernel that lost its state (a
// resumed session, a kernel that died) by running the session's cells
// again, and does what the user says; true means quit.
func (t *terminal) offerReplay(ctx context.Context, a *agent.Agent) bool {
	if t.json {
		return t.offerReplayJSON(ctx, a)
	}
	offer, ok := a.ReplayOffer()
	if !ok {
		return false
	}
	ans, ok := t.askReplay(ctx, offer)
	if !ok {
		return true
	}
	// The user saw every cell: the changed ones in full.
	return t.replayAnswered(ctx, a, ans == "y" || ans == "yes")
}

// replayAnswered replays the session's cells (accept) or records that
// the kernel's state was not restored; true means quit.
func (t *terminal) replayAnswered(ctx context.Context, a *agent.Agent, accept bool) bool {
	if accept {
		return t.stream(ctx, a, func(ctx context.Context) iter.Seq[agent.Event] { return a.ReplayReviewed(ctx) }) == -1
	}
	note, err := a.SkipReplay()
	if err != nil {
		fmt.Fprintf(t.errw, "error: %v\n", err)
	} else if note != nil {
		t.render(note)
	}
	return false
}

// askReplay shows a replay offer and reads the answer (v shows all the
// code first), holding the terminal throughout: a form a server sends
// while it connects waits until this is answered, and the other way
// round. ok is false at the end of input, a signal or the end of ctx.
func (t *terminal) askReplay(ctx context.Context, offer cells.ReplayOffer) (ans string, ok bool) {
	if !t.take(ctx, nil, HoldReplay) {
		return "", false
	}
	defer t.give()
	why := map[string]string{cells.LostResumed: "the session was resumed", cells.LostDied: "the kernel died", cells.LostRestarted: "the kernel was restarted"}[offer.Reason]
	t.newline()
	t.write(fmt.Sprintf("The kernel is fresh (%s). This session's %s would run again:\n", why, cells.Plural(len(offer.Cells), "successful code cell")))
	t.listReplay(offer, false)
	for {
		t.write("Replay them to restore its variables? [y/N, v shows all their code] ")
		t.lineStart = true
		line, ok := t.readLine(ctx, nil, t.interrupts)
		if !ok {
			return "", false
		}
		if ans = strings.ToLower(strings.TrimSpace(line)); ans != "v" {
			return ans, true
		}
		t.listReplay(offer, true)
	}
}

// listReplay shows the cells of a replay offer: each one's first line, or
// with all its whole code. A cell whose record the session file no longer
// holds as the app wrote it is marked and always shown whole.
func (t *terminal) listReplay(offer cells.ReplayOffer, all bool) {
	for i, c := range offer.Cells {
		mark := ""
		if c.Changed {
			mark = t.style.red(" (changed outside the app: check it)")
		}
		t.write(fmt.Sprintf("Cell %d%s:\n", i+1, mark))
		if all || c.Changed {
			t.showCode(c.Code)
			continue
		}
		t.showCode(clip(c.Code, 1))
	}
}

// grants lists this session's grants (/grants) or revokes one by its
// number (/revoke N); in --json mode as CommandOutput events.
func (t *terminal) grants(a *agent.Agent, line string) {
	cmd := "/grants"
	list := a.Grants()
	if arg, ok := strings.CutPrefix(line, "/revoke"); ok {
		cmd = "/revoke"
		n, err := strconv.Atoi(strings.TrimSpace(arg))
		if err != nil || n < 1 || n > len(list) {
			t.say(cmd, fmt.Sprintf("Give the number of a grant: /revoke N, with N from 1 to %d (see /grants).\n", len(list)))
			return
		}
		a.RevokeGrant(list[n-1])
		t.say(cmd, fmt.Sprintf("Revoked %s %q: those calls are asked again.\n", list[n-1].Type, list[n-1].Pattern()))
		list = a.Grants()
	}
	if len(list) == 0 {
		t.say(cmd, "This session has no grants: answer s to an approval to allow such calls until the session ends.\n")
		return
	}
	var b strings.Builder
	b.WriteString("Allowed for this session (/revoke N takes one back):\n")
	for i, r := range list {
		fmt.Fprintf(&b, "  %d. %s %q\n", i+1, r.Type, r.Pattern())
	}
	t.say(cmd, b.String())
}

// readLine waits for a line of stdin; ok is false at end of input, when
// stop closes, at a signal on interrupts (nil during a turn, whose own
// watcher takes them) or when ctx ends.
func (t *terminal) readLine(ctx context.Context, stop <-chan struct{}, interrupts <-chan os.Signal) (string, bool) {
	if t.asked.CompareAndSwap(false, true) {
		select {
		case t.want <- struct{}{}:
		default: // the reader is done: lines is closed
		}
	}
	select {
	case l, ok := <-t.lines:
		t.asked.Store(false)
		return l, ok
	case <-interrupts:
		return "", false
	case <-stop:
		return "", false
	case <-ctx.Done():
		return "", false
	}
}

// turn streams one request and returns its exit status; -1 means quit
// (a second Ctrl-C).
func (t *terminal) turn(ctx context.Context, a *agent.Agent, prompt string) int {
	return t.stream(ctx, a, func(ctx context.Context) iter.Seq[agent.Event] {
		return a.Stream(ctx, agent.Prompt{Text: prompt})
	})
}

// stream renders what events streams (a turn, a replay), answering its
// approvals and input from stdin, and returns the exit status of a turn;
// -1 means quit (a second Ctrl-C).
func (t *terminal) stream(ctx context.Context, a *agent.Agent, events func(context.Context) iter.Seq[agent.Event]) int {
	turnCtx, quit := context.WithCancel(ctx)
	defer quit()
	stopped := make(chan struct{}) // closed at the first Ctrl-C
	done := make(chan struct{})
	var quitting atomic.Bool
	go func() {
		n := 0
		for {
			select {
			case <-t.interrupts:
				n++
				if n == 1 {
					close(stopped)
					a.Cancel()
					fmt.Fprintln(t.errw, t.style.yellow("\nCancelling… (Ctrl-C again quits)"))
					continue
				}
				quitting.Store(true)
				quit()
				return
			case <-done:
				return
			}
		}
	}()
	defer close(done)

	status := exitDone
	t.turnTokens, t.turnCost, t.priced, t.turnFiles = [3]int{}, 0, false, 0
	t.resetJudge()
	var skip mcpSkipper
	defer skip.end()
	var waitQ waitQuestion
	defer waitQ.end()
	for ev := range events(turnCtx) {
		switch e := ev.(type) {
		case *mcpglue.MCPWaiting:
			switch {
			case e.AgentID != agent.MainAgent:
				// Ctrl-C stops a subagent's wait
			case t.json && e.Done:
				waitQ.end()
			case t.json:
				waitQ.start(turnCtx, t, e, stopped) // the question is the event
				continue
			case e.Done:
				skip.end()
			default:
				// Shown before its reader holds the terminal.
				t.render(ev)
				skip.start(turnCtx, t, e, stopped)
				continue
			}
		case *agent.ApprovalRequest:
			if t.json {
				t.approveJSON(turnCtx, e, stopped)
				continue
			}
			if !t.take(turnCtx, stopped, "an approval") {
				e.Answer(agent.Reject, "")
				continue
			}
			t.show(ev)
			t.approve(turnCtx, e, stopped)
			t.give()
			continue
		case *agent.BudgetRequest:
			if t.json {
				b, err := agent.MarshalEvent(e)
				e.Continue(err == nil && t.yesNoJSON(turnCtx, stopped, askBudget, b))
				continue
			}
			if !t.take(turnCtx, stopped, "the budget question") {
				e.Continue(false)
				continue
			}
			t.show(ev)
			e.Continue(t.confirmHeld(turnCtx, stopped, "Continue and raise the budget?"))
			t.give()
			continue
		case *agent.InputRequest:
			if t.json {
				t.inputJSON(turnCtx, stopped, e)
				continue
			}
			if !t.take(turnCtx, stopped, "a line for the cell's input()") {
				e.Reply("")
				continue
			}
			t.show(ev)
			line, _ := t.readLine(turnCtx, stopped, nil)
			t.give()
			e.Reply(line)
			continue
		}
		t.render(ev)
		switch e := ev.(type) {
		case *agent.Response:
			if e.AgentID == agent.MainAgent && e.Text == "Tool call rejected" {
				status = exitRejected
			} else if e.AgentID == agent.MainAgent && status == exitCut {
				status = exitDone // a later answer after a cut one
			}
		case *agent.ReplyCut:
			if e.AgentID == agent.MainAgent && status == exitDone {
				status = exitCut
			}
		case *agent.Failed:
			if e.AgentID == agent.MainAgent {
				status = exitFailed
			}
		case *agent.Cancelled:
			if e.AgentID == agent.MainAgent {
				status = exitCancelled
			}
		}
	}
	t.endTurn()
	if quitting.Load() {
		return -1
	}
	return status
}

// mcpSkipper reads a line while the main agent's model call waits for MCP
// servers: Enter (an empty line) or /skip skips them (MCPWaiting.Skip).
// Nothing else reads stdin then: the agent runs no tool while it waits.
type mcpSkipper struct {
	stop chan struct{}
	done chan struct{}
}

func (s *mcpSkipper) start(ctx context.Context, t *terminal, w *mcpglue.MCPWaiting, stopped <-chan struct{}) {
	s.end()
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	stop, done := s.stop, s.done
	// The reader gives way to the events and questions that come during
	// the wait (terminal_hold.go).
	rctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-stop:
		case <-stopped:
		}
		cancel()
	}()
	go func() {
		defer close(done)
		defer cancel()
		for {
			line, ok := t.readYielding(rctx, holdMCPWait, nil, nil)
			if !ok {
				return
			}
			switch strings.TrimSpace(line) {
			case "", "/skip", "skip":
				w.Skip()
				return
			}
			fmt.Fprintln(t.errw, t.style.yellow("Enter or /skip goes on without the MCP server; Ctrl-C stops the turn."))
		}
	}()
}

// end stops the reader and waits for it, so the next reader of stdin is
// alone; a line asked for and not yet read is kept for it.
func (s *mcpSkipper) end() {
	if s.stop == nil {
		return
	}
	close(s.stop)
	<-s.done
	s.stop, s.done = nil, nil
}

// expand is Agent.ExpandMCP that asks before it attaches a mentioned
// resource larger than the mention limit. In --json mode the question is
// a Confirm question; no answer is no, and then the request is not sent
// and a NotSent event says why.
func (t *terminal) expand(ctx context.Context, a *agent.Agent, text string) (string, error) {
	ask := func(o *mcp.MentionOptions) {
		o.Allow = func(server, uri string, size int) bool {
			q := fmt.Sprintf("@%s:%s is %s; mentions over %d KiB go to the model whole only when you agree. Attach it?",
				visible.String(server), visible.String(uri), mcp.SizeText(size), mcp.DefaultMentionLimit>>10)
			if t.json {
				return t.confirm(ctx, nil, q)
			}
			return t.confirm(ctx, nil, t.style.yellow(q))
		}
	}
	out, err := a.ExpandMCP(ctx, text, ask)
	if err != nil && t.json {
		t.emit(adapter.MustJSON(notSent{Type: "NotSent", Error: err.Error()}))
	}
	return out, err
}

// notSent says why a request was not sent to the model (--json mode).
type notSent struct {
	Type  string `json:"type"`
	Error string `json:"error"`
}
