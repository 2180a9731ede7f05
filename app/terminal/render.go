package terminal

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/longsession"
	"github.com/freeact/desktop/agent/mcpglue"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/checkpoint"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/permission"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/internal/visible"
)

// style colours terminal text when the output is a terminal and NO_COLOR
// is unset.
type style struct{ on bool }

func newStyle(w io.Writer) style {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return style{}
	}
	st, err := f.Stat()
	return style{on: err == nil && st.Mode()&os.ModeCharDevice != 0}
}

func (s style) wrap(code, text string) string {
	if !s.on || text == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

func (s style) dim(t string) string    { return s.wrap("2", t) }
func (s style) bold(t string) string   { return s.wrap("1", t) }
func (s style) red(t string) string    { return s.wrap("31", t) }
func (s style) yellow(t string) string { return s.wrap("33", t) }
func (s style) cyan(t string) string   { return s.wrap("36", t) }

// maxToolLines is how much of a non-code tool result is shown.
const maxToolLines = 12

// render prints one event. The interactive terminal is held meanwhile,
// so that no event is printed into a question being asked.
func (t *terminal) render(ev agent.Event) {
	if t.json {
		b, err := agent.MarshalEvent(ev)
		if err != nil {
			fmt.Fprintf(t.errw, "error: %v\n", err)
			return
		}
		t.emit(b)
		return
	}
	t.take(context.Background(), nil, "")
	defer t.give()
	t.show(ev)
}

// show prints one event on the interactive terminal, held by the caller.
func (t *terminal) show(ev agent.Event) {
	switch e := ev.(type) {
	case *agent.Usage:
		if e.Judge {
			t.countJudge(e)
			return
		}
		t.turnTokens[0] += e.InputTokens
		t.turnTokens[1] += e.OutputTokens
		t.turnTokens[2] += e.ThinkingTokens
		if e.Cost != nil {
			t.turnCost += *e.Cost
			t.priced = true
		}
		return
	case *agent.SessionUsage:
		t.session = e
		return
	case *agent.FilesChanged:
		t.turnFiles += len(e.Files)
	}
	t.switchAgent(ev.Agent())
	switch e := ev.(type) {
	case *agent.ThoughtsChunk:
		if !t.thinking {
			t.newline()
			t.write(t.style.dim("thinking: "))
			t.thinking = true
		}
		t.write(t.style.dim(visible.String(e.Text)))
	case *agent.ResponseChunk:
		t.endThinking()
		t.write(visible.String(e.Text))
		t.streamed = true
	case *agent.Response:
		t.endThinking()
		if !t.streamed && e.Text != "" {
			// A text the agent wrote (a stop at max_turns or at the
			// budget, a rejection) comes without chunks.
			t.newline()
			t.write(visible.String(e.Text))
		}
		t.streamed = false
		t.newline()
	case *agent.CodeExecutionOutputChunk:
		text := outputText(e.Text)
		if e.Kind == "stderr" || e.Kind == "error" {
			text = t.style.red(text)
		}
		t.write(text)
	case *agent.CodeExecutionOutput:
		t.newline()
	case *agent.ToolOutput:
		if e.ToolName == agent.ExecuteTool {
			return // its output streamed already
		}
		// A result is framed line by line, so that no line of it can pass
		// for a prompt or a warning of the terminal's own.
		t.line(t.style.dim(prefixLines(visible.String(clip(e.Content, maxToolLines)), "  │ ")))
	case *agent.ToolProgress:
		// The card's live progress is the desktop's; the terminal shows
		// what went wrong: a server's warnings and errors, and freeact's
		// own notes (a form it declined).
		for _, l := range e.Logs {
			if slices.Contains([]string{"warning", "error", "critical", "alert", "emergency"}, l.Level) {
				t.line(t.style.yellow(fmt.Sprintf("[%s] %s", visible.Line(e.Server), visible.Line(l.Message))))
			}
		}
	case *agent.ModelRetry:
		t.line(t.style.yellow(fmt.Sprintf("The model service failed (%s); retrying in %.0fs (%d of %d)", visible.Line(e.Reason), e.DelaySecs, e.Attempt, e.MaxRetries)))
	case *agent.Cancelled:
		t.line(t.style.yellow("[cancelled during " + strings.ReplaceAll(e.Phase, "_", " ") + "]"))
	case *agent.Failed:
		t.line(t.style.red("error: " + visible.Line(e.Error)))
		if advice := adapter.FailureAdvice(e); advice != "" {
			t.line(t.style.yellow(visible.String(advice)))
		}
	case *agent.ApprovalRequest:
		t.endThinking()
		t.newline()
		t.showCall(e)
	case *agent.AutoApproved:
		// The call runs without asking: show it all the same, and who
		// allowed it.
		t.endThinking()
		t.newline()
		t.showCall(&agent.ApprovalRequest{Meta: e.Meta, ToolCall: e.ToolCall, Display: e.Display})
		t.write(t.style.dim(approvedBy(e)) + "\n")
	case *agent.SessionGrants:
		t.newline()
		t.write(t.style.dim(fmt.Sprintf("Allowed for this session (%d): %s · /grants lists them, /revoke N takes one back", len(e.Grants), grantList(e.Grants))) + "\n")
	case *agent.InputRequest:
		t.newline()
		t.write(visible.String(e.Prompt))
		t.lineStart = false
	case *agent.CellStarted:
		t.newline()
		if e.Source == history.CellReplay {
			t.write(t.style.dim(fmt.Sprintf("↻ replaying cell %d of %d", e.Index, e.Total)) + "\n")
		} else {
			t.write(t.style.dim(fmt.Sprintf("▶ your cell %d of %d", e.Index, e.Total)) + "\n")
		}
	case *agent.CellsFinished:
		t.newline()
		msg := fmt.Sprintf("cells run: %d of %d, failed: %d", e.Ran, e.Total, e.Failed)
		if e.Stopped {
			msg += "; stopped"
		}
		t.write(t.style.dim(msg) + "\n")
	case *agent.KernelStateNote:
		t.newline()
		t.write(t.style.yellow(e.Text) + "\n")
	case *agent.Notice:
		t.line(t.style.yellow(visible.Line(e.Text)))
	case *agent.HookNote:
		t.line(t.style.yellow(hookNoteLine(e)))
	case *agent.ReplyCut:
		t.line(t.style.yellow(visible.String(e.Text)))
	case *agent.Compacting:
		t.line(t.style.dim(fmt.Sprintf("Compacting the conversation: summarising %d earlier messages (%s)…", e.Messages, compactReason(e.Reason))))
	case *agent.Compacted:
		t.line(t.style.dim(fmt.Sprintf("Compacted %d messages: about %s → %s tokens. The model now sees this summary:", e.Messages, thousands(e.TokensBefore), thousands(e.TokensAfter))))
		t.line(t.style.dim(prefixLines(clip(visible.String(e.Summary), 40), "  │ ")))
	case *agent.FilesChanged:
		t.line(t.style.dim("files changed: " + describeChanges(e.Files)))
	case *mcpglue.MCPWaiting:
		t.line(t.style.yellow(mcpWaitingText(e)))
	case *agent.BudgetRequest:
		t.line(t.style.yellow(fmt.Sprintf("Budget: this session has cost %s of %s (max_cost_per_session); the next model call costs about %s.",
			longsession.FormatUSD(e.Spent), longsession.FormatUSD(e.Budget), longsession.FormatUSD(e.Estimate))))
	}
}

// emit prints one JSON event on a line of its own (--json mode).
func (t *terminal) emit(b []byte) {
	t.outMu.Lock()
	defer t.outMu.Unlock()
	t.out.Write(append(b[:len(b):len(b)], '\n'))
}

// compactReason says why a compaction runs.
func compactReason(r string) string {
	switch r {
	case longsession.CompactThreshold:
		return "the context window is filling up"
	case longsession.CompactOverflow:
		return "the model refused the request as too large"
	}
	return "asked for"
}

// describeChanges lists changed files as "M notes.txt, D gone.txt (+2 −1)".
func describeChanges(cs []checkpoint.Change) string {
	var parts []string
	for _, c := range cs {
		p := map[string]string{checkpoint.Added: "A ", checkpoint.Modified: "M ", checkpoint.Deleted: "D "}[c.Status] + visible.String(c.Path)
		switch {
		case c.Large:
			p += " (large, not kept)"
		case c.Binary:
			p += " (binary)"
		case c.Added > 0 && c.Removed > 0:
			p += fmt.Sprintf(" (+%d −%d)", c.Added, c.Removed)
		case c.Added > 0:
			p += fmt.Sprintf(" (+%d)", c.Added)
		case c.Removed > 0:
			p += fmt.Sprintf(" (−%d)", c.Removed)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// thousands writes n with thousands separators.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// usageLine is the token line after a turn: tokens, cost, the session's
// cost and budget, and how full the context is.
func (t *terminal) usageLine() string {
	n := t.turnTokens
	line := fmt.Sprintf("↳ tokens: %d in · %d out · %d thinking", n[0], n[1], n[2])
	if t.priced {
		line += " · " + longsession.FormatUSD(t.turnCost)
	}
	if su := t.session; su != nil {
		if su.Cost > 0 || su.Budget != nil {
			line += " · session " + longsession.FormatUSD(su.Cost)
			if su.Budget != nil {
				line += " of " + longsession.FormatUSD(*su.Budget)
			}
		}
		if su.ContextWindow > 0 {
			line += fmt.Sprintf(" · context %s of %s (%d%%)", thousands(su.ContextTokens), thousands(su.ContextWindow), su.ContextTokens*100/su.ContextWindow)
		} else if su.ContextTokens > 0 {
			line += fmt.Sprintf(" · context %s tokens", thousands(su.ContextTokens))
		}
	}
	if t.turnFiles > 0 {
		line += fmt.Sprintf(" · %d file changes (/diff shows them, /undo reverts)", t.turnFiles)
	}
	return line
}

// endTurn prints the turn's token counts.
func (t *terminal) endTurn() {
	if t.json {
		return
	}
	t.switchAgent(agent.MainAgent)
	t.endThinking()
	t.newline()
	if t.turnTokens != [3]int{} || t.turnFiles > 0 {
		fmt.Fprintln(t.out, t.style.dim(t.usageLine()))
	}
	if j := t.judgeLine(); j != "" {
		fmt.Fprintln(t.out, t.style.dim(j))
	}
}

// switchAgent starts a new line when another agent's output begins, so
// every line of a subagent carries its id.
func (t *terminal) switchAgent(id string) {
	if id == t.agentID {
		return
	}
	t.endThinking()
	t.newline()
	t.agentID = id
}

func (t *terminal) endThinking() {
	if t.thinking {
		t.thinking = false
		t.newline()
	}
}

// write prints text, prefixing each line of a subagent's output with its id.
func (t *terminal) write(text string) {
	if text == "" {
		return
	}
	var b strings.Builder
	for _, r := range text {
		if t.lineStart && t.agentID != agent.MainAgent {
			b.WriteString(t.style.cyan("[" + t.agentID + "] "))
		}
		b.WriteRune(r)
		t.lineStart = r == '\n'
	}
	io.WriteString(t.out, b.String())
}

// line prints text on a line of its own.
func (t *terminal) line(text string) {
	t.newline()
	t.write(text)
	t.newline()
}

func (t *terminal) newline() {
	if !t.lineStart {
		io.WriteString(t.out, "\n")
		t.lineStart = true
	}
}

// approvedBy says who let a call run without asking.
func approvedBy(e *agent.AutoApproved) string {
	switch e.By {
	case agent.BySession:
		return fmt.Sprintf("↳ allowed by this session's grant %q", e.Rule)
	case agent.BySkip:
		return "↳ allowed: permissions are skipped (--skip-permissions)"
	case agent.ByHook:
		return "↳ allowed by a hook: " + visible.Line(e.Rule)
	case agent.BySandbox:
		return "↳ auto: runs in the sandbox, checkpointed (/undo reverts it)"
	case agent.ByReadOnly:
		return "↳ auto: a read-only tool of a server you trusted in this conversation"
	case agent.ByJudge:
		return "↳ auto: the judge allowed it: " + visible.Line(e.Reason)
	}
	return fmt.Sprintf("↳ allowed by the saved rule %q (.freeact/permissions.json)", e.Rule)
}

// grantList shows grants as their patterns.
func grantList(rules []permission.Rule) string {
	var out []string
	for _, r := range rules {
		out = append(out, fmt.Sprintf("%s %q", r.Type, r.Pattern()))
	}
	return strings.Join(out, ", ")
}

// showCall prints what an approval would allow (or a rule allowed): the exact code, command,
// tool arguments or file, with every character that could hide or move
// text shown as an escape (see internal/visible), and why it is asked when
// a rule allows calls like it.
func (t *terminal) showCall(r *agent.ApprovalRequest) {
	v, line := visible.String, visible.Line
	title := agent.TypeName(r.ToolCall) + " " + line(r.ToolCall.Name())
	t.write(t.style.bold("── " + title + " "))
	t.newline()
	if r.Protected {
		t.write(t.style.yellow("Warning: "+line(r.Reason)) + "\n")
	} else if r.Reason != "" {
		t.write(t.style.yellow("Why asked: "+line(r.Reason)) + "\n")
	}
	if g, ok := r.ToolCall.(agent.GenericCall); ok && g.Hints != nil {
		t.write(t.style.dim("server's hints (not checked, never allow a call): "+line(hintText(g.Hints))) + "\n")
	}
	if r.NoAlways != "" {
		t.write(t.style.yellow(line(r.NoAlways)) + "\n")
	}
	switch c := r.ToolCall.(type) {
	case agent.CodeAction:
		t.showCode(c.Code)
	case agent.ShellAction:
		if c.Interpreter != "" {
			t.write(t.style.dim("script run by "+c.Interpreter+":") + "\n" + strings.TrimRight(r.Display, "\n") + "\n")
			break
		}
		if c.Opaque {
			t.write(t.style.yellow("(cannot be split into simple commands: approve it as a whole)") + "\n")
		}
		t.write("$ " + v(c.Command) + "\n")
	case agent.GenericCall:
		args := string(c.Args)
		var val any
		if json.Unmarshal(c.Args, &val) == nil {
			if b, err := json.MarshalIndent(val, "", "  "); err == nil {
				args = string(b)
			}
		}
		t.write(v(clip(args, 20)) + "\n")
	case agent.FileRead:
		t.write("read " + v(c.Path) + "\n")
	case agent.FileWrite:
		t.write(fmt.Sprintf("write %s (%d bytes)\n", v(c.Path), len(c.Content)))
		t.write(t.style.dim(v(clip(c.Content, 10))) + "\n")
	case agent.FileEdit:
		t.write("edit " + v(c.Path) + "\n")
		t.write(t.style.red(prefixLines(v(clip(c.OldText, 10)), "- ")) + "\n")
		t.write(t.style.cyan(prefixLines(v(clip(c.NewText, 10)), "+ ")) + "\n")
	}
}

// hintText is an MCP tool's annotations as the approval lists them: its
// title, then what each hint the server gives says.
func hintText(h *mcp.Hints) string {
	var out []string
	if h.Title != "" {
		out = append(out, strconv.Quote(h.Title))
	}
	for _, x := range []struct {
		v        *bool
		yes, not string
	}{
		{h.ReadOnly, "read-only", "changes things"},
		{h.Destructive, "destructive", "not destructive"},
		{h.Idempotent, "idempotent", "not idempotent"},
		{h.OpenWorld, "reaches outside", "closed world"},
	} {
		switch {
		case x.v == nil:
		case *x.v:
			out = append(out, x.yes)
		default:
			out = append(out, x.not)
		}
	}
	return strings.Join(out, ", ")
}

// outputText prepares code output for the terminal: a carriage return
// (progress bars) starts a new line instead of going back over the line,
// and other hidden characters show as escapes, so output cannot move the
// cursor, clear a line or overwrite an approval shown meanwhile.
func outputText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return visible.String(strings.ReplaceAll(s, "\r", "\n"))
}

// approve asks until it gets y, n, a or s (Enter is yes) and answers r.
// For a code action e opens the cell in $VISUAL or $EDITOR and asks again
// for the edited cell, which runs once. End of input, Ctrl-C or the end of
// the turn answer no. In --json mode the request was printed as JSON and
// the answer is a bare line. A protected call takes y or n only; in --json
// mode a or s count as y (no rule is saved), so a script's answers stay in
// step with its requests. A call whose request offers no lasting rule
// (NoAlways: a tool its server marks destructive) takes y, n or s; in
// --json mode a counts as s.
func (t *terminal) approve(ctx context.Context, r *agent.ApprovalRequest, stop <-chan struct{}) {
	code, editable := r.ToolCall.(agent.CodeAction)
	editable = editable && !t.json
	edited := ""
	yes := func() {
		if edited != "" {
			r.Edit(edited)
		} else {
			r.Answer(agent.Once, "")
		}
	}
	edit := ""
	if editable {
		edit = "/e"
	}
	for {
		switch {
		case t.json:
		case r.Protected:
			t.write(fmt.Sprintf("Approve once? [Y/n%s] ", edit))
			t.lineStart = true
		case r.NoAlways != "":
			t.write(fmt.Sprintf("Approve? [Y/n/s/d] %s ", t.style.dim(fmt.Sprintf(`(s: allow "%s" for this session, d: never: deny it always)`, visible.Line(r.Suggested)))))
			t.lineStart = true
		default:
			hint := fmt.Sprintf(`(a: always allow "%s", s: for this session, d: never: deny it always`, visible.Line(r.Suggested))
			if editable {
				hint += ", e: edit the cell"
			}
			t.write(fmt.Sprintf("Approve? [Y/n/a/s/d%s] %s ", edit, t.style.dim(hint+")")))
			t.lineStart = true
		}
		line, ok := t.readLine(ctx, stop, nil)
		if !ok {
			r.Answer(agent.Reject, "")
			return
		}
		answer := strings.ToLower(strings.TrimSpace(line))
		switch answer {
		case "", "y", "yes":
			yes()
			return
		case "n", "no":
			r.Answer(agent.Reject, "")
			return
		case "d", "never", "deny":
			switch {
			case r.Protected && t.json:
				fmt.Fprintf(t.errw, "approval answer %q: no rule is kept for this call; taken as n\n", line)
				r.Answer(agent.Reject, "")
			case r.Protected:
				t.write("No rule is kept for this call: answer y (yes) or n (no).\n")
				continue
			default:
				// No, and the suggested rule saved as a deny rule.
				r.Answer(agent.Never, "")
			}
			return
		case "a", "always", "s", "session":
			switch {
			case r.Protected && t.json:
				fmt.Fprintf(t.errw, "approval answer %q: this call can only be allowed once; taken as y\n", line)
				yes()
				return
			case r.Protected:
				t.write("This call can only be allowed once: answer y (yes) or n (no).\n")
				continue
			case r.NoAlways != "" && answer[0] == 'a' && t.json:
				fmt.Fprintf(t.errw, "approval answer %q: no lasting rule is offered for this call; taken as s\n", line)
				r.Answer(agent.Session, "")
				return
			case r.NoAlways != "" && answer[0] == 'a':
				t.write("No lasting rule is offered for this call: answer y (once), s (this session) or n (no).\n")
				continue
			case edited != "":
				t.write("An edited cell runs once: answer y to run it, or e to edit it again.\n")
				continue
			case answer[0] == 'a':
				r.Answer(agent.Always, "")
			default:
				r.Answer(agent.Session, "")
			}
			return
		case "e", "edit":
			if editable {
				src := code.Code
				if edited != "" {
					src = edited
				}
				next, err := editInEditor(src, t.in, t.out)
				switch {
				case err != nil:
					t.write(t.style.red("Could not edit the cell: "+err.Error()) + "\n")
				case strings.TrimSpace(next) == "":
					t.write("The edited cell is empty: nothing changed.\n")
				default:
					edited = next
					t.write(t.style.bold("── the cell as you edited it ") + "\n")
					t.showCode(edited)
				}
				continue
			}
		}
		switch {
		case t.json:
			fmt.Fprintf(t.errw, "approval answer %q: send y, n, a, s or d\n", line)
		case editable:
			t.write("Please answer y (yes), n (no), a (always), s (this session), d (never) or e (edit the cell).\n")
		case r.NoAlways != "":
			t.write("Please answer y (yes), n (no), s (this session) or d (never).\n")
		default:
			t.write("Please answer y (yes), n (no), a (always), s (this session) or d (never).\n")
		}
	}
}

// editInEditor opens code in the user's editor ($VISUAL, else $EDITOR,
// else vi) on the terminal and returns the file as the editor left it.
func editInEditor(code string, in io.Reader, out io.Writer) (string, error) {
	editor := os.Getenv("VISUAL")
	if editor == "" {
		editor = os.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	f, err := os.CreateTemp("", "freeact-cell-*.py")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(code); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	// As git does: the variable may hold arguments ("code --wait").
	cmd := exec.Command("sh", "-c", editor+` "$1"`, "editor", f.Name())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %w", editor, err)
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// showCode prints a cell with line numbers, hidden characters as escapes.
func (t *terminal) showCode(code string) {
	for i, l := range strings.Split(strings.TrimRight(code, "\n"), "\n") {
		t.write(t.style.dim(fmt.Sprintf("%3d │ ", i+1)) + visible.String(l) + "\n")
	}
}

// clip keeps the first n lines of s and says how many were left out.
func clip(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… (%d more lines)", len(lines)-n)
}

func prefixLines(s, p string) string {
	return p + strings.ReplaceAll(s, "\n", "\n"+p)
}

// mcpWaitingText says what a model call waits for, or how the wait ended.
func mcpWaitingText(e *mcpglue.MCPWaiting) string {
	names := make([]string, len(e.Servers))
	for i, n := range e.Servers {
		names[i] = visible.String(n)
	}
	servers := "MCP server " + strings.Join(names, ", ")
	if len(names) > 1 {
		servers = "MCP servers " + strings.Join(names, ", ")
	}
	switch {
	case e.Done && e.Skipped:
		return "Going on without " + servers + "; its tools join once it connects."
	case e.Done:
		return "Done waiting for " + servers + "."
	}
	limit := ""
	if e.LimitSecs > 0 {
		limit = fmt.Sprintf(" (up to %.0f s)", e.LimitSecs)
	}
	return "Waiting for " + servers + " to start" + limit + "… Enter or /skip goes on without it."
}

// hookNoteLine is the terminal's line for a hook that blocked, changed or
// added context to a call: the hook's words on one line, every control
// character shown, so they cannot pose as the terminal's own prompts.
func hookNoteLine(e *agent.HookNote) string {
	what := map[string]string{agent.HookBlocked: "blocked", agent.HookChanged: "changed the input of", agent.HookContext: "added context to"}[e.Kind]
	if what == "" {
		what = e.Kind
	}
	line := fmt.Sprintf("hook (%s) %s %s", e.Event, what, e.Tool)
	if e.Text != "" {
		line += ": " + e.Text
	}
	if e.Input != "" {
		line += " → runs with " + e.Input
	}
	return visible.Line(line)
}
