package terminal

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/freeact/desktop/agent/cells"
	"github.com/freeact/desktop/agent/ckpt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/checkpoint"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/permission"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/internal/visible"
)

// kernelNote is said wherever files are reverted.
const kernelNote = "Reverting restores files only: variables, imports and data in the Python kernel keep their current values."

// command runs a terminal command between turns: /compact, /diff, /undo.
// In --json mode what it says is events: Diff, CommandOutput.
func (t *terminal) command(ctx context.Context, a *agent.Agent, cmd string) {
	switch cmd {
	case "/compact":
		t.turnTokens, t.turnCost, t.priced, t.turnFiles = [3]int{}, 0, false, 0
		for ev := range a.Compact(ctx) {
			t.render(ev)
		}
		t.endTurn()
	case "/diff":
		store, records, ok := t.lastTurn(a, cmd)
		if !ok {
			return
		}
		diffs, err := store.Diff(ctx, records)
		if err != nil {
			t.fail(cmd, err)
			return
		}
		if t.json {
			if diffs == nil {
				diffs = []checkpoint.FileDiff{}
			}
			t.emit(adapter.MustJSON(diffEvent{Type: "Diff", Turn: records[0].Turn, Prompt: records[0].Prompt, Files: diffs}))
			return
		}
		t.write(t.style.bold(fmt.Sprintf("Turn %d: %s", records[0].Turn, visible.Line(records[0].Prompt))) + "\n")
		writeDiffs(t.out, t.style, diffs)
	case "/undo":
		store, records, ok := t.lastTurn(a, cmd)
		if !ok {
			return
		}
		plan, err := store.PlanRevert(ctx, records)
		if err != nil {
			t.fail(cmd, err)
			return
		}
		// In --json mode the plan is said in CommandOutput events, each
		// before the question it leads to.
		var w io.Writer = t.out
		st := t.style
		var said strings.Builder
		flush := func() {
			if said.Len() > 0 {
				t.say(cmd, said.String())
				said.Reset()
			}
		}
		if t.json {
			w, st = &said, style{}
		}
		head := st.bold(fmt.Sprintf("Revert turn %d: %s", records[0].Turn, visible.Line(records[0].Prompt))) + "\n"
		var force, proceed bool
		var del []string
		if t.json {
			said.WriteString(head)
			force, proceed, del = confirmPlan(w, st, plan, func(q string) bool { flush(); return t.confirm(ctx, nil, q) })
			flush()
		} else {
			force, proceed, del = t.confirmUndo(ctx, head, plan)
		}
		if !proceed {
			t.say(cmd, "Nothing was reverted.\n")
			return
		}
		rev, _, err := a.Revert(ctx, records[0].TurnID, force, del...)
		switch {
		case err != nil:
			t.fail(cmd, err)
		case rev == nil:
			t.say(cmd, "The files were already as before the turn.\n")
		default:
			t.say(cmd, fmt.Sprintf("Reverted %d files (checkpoint %s; `freeact checkpoints revert %s` takes the revert back).\n", len(rev.Files), rev.Checkpoint, rev.Checkpoint))
		}
	}
}

// confirmUndo shows /undo's plan and asks its questions on the
// interactive terminal, holding it throughout: a form that comes
// meanwhile waits, and prints nothing into the plan.
func (t *terminal) confirmUndo(ctx context.Context, head string, plan checkpoint.Plan) (force, proceed bool, del []string) {
	if !t.take(ctx, nil, holdUndo) {
		return false, false, nil
	}
	defer t.give()
	t.write(head)
	return confirmPlan(t.out, t.style, plan, func(q string) bool { return t.confirmHeld(ctx, nil, q) })
}

// commandOutput is what a terminal command (/diff, /undo) says, in
// --json mode: Text, or Error when it failed.
type commandOutput struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Text    string `json:"text,omitempty"`
	Error   string `json:"error,omitempty"`
}

// diffEvent is /diff in --json mode: the files the last turn changed.
type diffEvent struct {
	Type   string                `json:"type"`
	Turn   int                   `json:"turn"`
	Prompt string                `json:"prompt"`
	Files  []checkpoint.FileDiff `json:"files"`
}

// revertInterrupted says, in --json mode, that a revert was cut short.
type revertInterrupted struct {
	Type  string    `json:"type"`
	Label string    `json:"label"`
	Paths int       `json:"paths"`
	Time  time.Time `json:"time"`
	Text  string    `json:"text"`
}

// say prints what a command says: a CommandOutput event in --json mode.
func (t *terminal) say(cmd, text string) {
	if t.json {
		t.emit(adapter.MustJSON(commandOutput{Type: "CommandOutput", Command: cmd, Text: strings.TrimSuffix(text, "\n")}))
		return
	}
	t.write(text)
}

// fail prints why a command failed: a CommandOutput event with its error
// in --json mode.
func (t *terminal) fail(cmd string, err error) {
	if t.json {
		t.emit(adapter.MustJSON(commandOutput{Type: "CommandOutput", Command: cmd, Error: err.Error()}))
		return
	}
	t.write(t.style.red("error: "+err.Error()) + "\n")
}

// recover tells what a freeact process that died left of the workspace's
// checkpoints: actions recorded late, a revert cut short. When ask is set
// it offers to finish or roll back such a revert; true means quit. In
// --json mode a revert cut short is a RevertInterrupted event.
func (t *terminal) recover(ctx context.Context, a *agent.Agent, ask bool) bool {
	evs, in, err := a.Recover(ctx)
	for _, ev := range evs {
		t.render(ev)
	}
	if err != nil {
		t.fail("recover", err)
	}
	if in == nil {
		return false
	}
	if t.json {
		t.emit(adapter.MustJSON(revertInterrupted{Type: "RevertInterrupted", Label: in.Label, Paths: in.Files, Time: in.Time, Text: interruptedText(in)}))
		return false
	}
	line, ok := t.askRecover(ctx, in, ask)
	if !ok {
		return true
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "f":
		rev, err := a.FinishRevert(ctx)
		switch {
		case err != nil:
			t.write(t.style.red("error: "+err.Error()) + "\n")
		case rev == nil:
			t.write("The revert is finished; it changed nothing.\n")
		default:
			t.write(fmt.Sprintf("The revert is finished: %d files (checkpoint %s; `freeact checkpoints revert %s` takes it back).\n", len(rev.Files), rev.Checkpoint, rev.Checkpoint))
		}
	case "r":
		if err := a.RollbackRevert(ctx); err != nil {
			t.write(t.style.red("error: "+err.Error()) + "\n")
		} else {
			t.write("The revert was rolled back: the files are as they were before it.\n")
		}
	}
	return false
}

// askRecover says that a revert was cut short and, when ask is set, reads
// what to do about it, holding the terminal throughout: a form a server
// sends while it connects waits until this is answered, and the other way
// round. ok is false at the end of input, a signal or the end of ctx.
func (t *terminal) askRecover(ctx context.Context, in *checkpoint.Interrupted, ask bool) (string, bool) {
	if !t.take(ctx, nil, holdRecover) {
		return "", false
	}
	defer t.give()
	t.newline()
	t.write(t.style.yellow(interruptedText(in)) + "\n")
	if !ask {
		return "", true
	}
	t.write("Finish the revert (f), roll it back (r), or decide later (Enter)? ")
	t.lineStart = true
	return t.readLine(ctx, nil, t.interrupts)
}

// interruptedText says that a revert was cut short and what to do.
func interruptedText(in *checkpoint.Interrupted) string {
	return fmt.Sprintf("A revert was interrupted (%s, %s, %s): some files may be reverted and others not. "+
		"`freeact checkpoints finish` completes it; `freeact checkpoints rollback` puts the files back as they were before it.",
		in.Label, cells.Plural(in.Files, "path"), in.Time.Local().Format(time.DateOnly+" 15:04"))
}

// lastTurn finds the session's latest turn with changes not reverted.
func (t *terminal) lastTurn(a *agent.Agent, cmd string) (*checkpoint.Store, []checkpoint.Record, bool) {
	store := a.Checkpoints()
	if store == nil {
		if t.json {
			t.fail(cmd, errors.New(`checkpoints are off: set "checkpoints": true in .freeact/agent.json`))
		} else {
			t.write(t.style.yellow("Checkpoints are off: set \"checkpoints\": true in .freeact/agent.json.") + "\n")
		}
		return nil, nil, false
	}
	id := a.LastTurnCheckpoint()
	if id == "" {
		t.say(cmd, "No turn of this session changed files (or all such changes were reverted).\n")
		return nil, nil, false
	}
	records, err := store.Find(id)
	if err != nil {
		t.fail(cmd, err)
		return nil, nil, false
	}
	return store, records, true
}

// confirm asks a yes/no question; Enter is no. In --json mode it is a
// question (a Confirm event) that a bare y or n answers too.
func (t *terminal) confirm(ctx context.Context, stop <-chan struct{}, question string) bool {
	if t.json {
		return t.yesNoJSON(ctx, stop, askConfirm, adapter.MustJSON(confirmRequest{Type: "Confirm", Question: question}))
	}
	if !t.take(ctx, stop, "a question") {
		return false
	}
	defer t.give()
	return t.confirmHeld(ctx, stop, question)
}

// confirmHeld asks a yes/no question on the interactive terminal, held
// by the caller.
func (t *terminal) confirmHeld(ctx context.Context, stop <-chan struct{}, question string) bool {
	for {
		if !t.json {
			t.write(question + " [y/N] ")
			t.lineStart = true
		}
		line, ok := t.readLine(ctx, stop, nil)
		if !ok {
			return false
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return true
		case "", "n", "no":
			return false
		}
		if t.json {
			fmt.Fprintf(t.errw, "answer %q: send y or n\n", line)
		}
	}
}

// writeDiffs prints unified diffs, coloured when the style is.
func writeDiffs(w io.Writer, st style, diffs []checkpoint.FileDiff) {
	if len(diffs) == 0 {
		fmt.Fprintln(w, "No files differ.")
		return
	}
	for _, d := range diffs {
		head := fmt.Sprintf("%s %s", d.Status, visible.Line(d.Path))
		switch {
		case d.Large:
			fmt.Fprintln(w, st.bold(head)+" (larger than checkpoint_max_file_bytes: not kept, no diff)")
			continue
		case d.Binary:
			fmt.Fprintln(w, st.bold(head)+" (binary)")
			continue
		case d.TooLarge:
			fmt.Fprintln(w, st.bold(head)+" (too large to show)")
			continue
		}
		fmt.Fprintln(w, st.bold(head))
		// A file's lines are the model's: every hidden character escaped.
		for _, l := range strings.Split(strings.TrimRight(d.Diff, "\n"), "\n") {
			l = visible.String(l)
			switch {
			case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
				fmt.Fprintln(w, st.dim(l))
			case strings.HasPrefix(l, "+"):
				fmt.Fprintln(w, st.cyan(l))
			case strings.HasPrefix(l, "-"):
				fmt.Fprintln(w, st.red(l))
			case strings.HasPrefix(l, "@@"):
				fmt.Fprintln(w, st.yellow(l))
			default:
				fmt.Fprintln(w, l)
			}
		}
	}
}

// confirmPlan shows what a revert would do and asks; force is set when the
// user agreed to overwrite files changed since, or to change protected
// files after their warning. del lists the files the reverted changes
// created whose content was not kept and that the user chose to delete;
// the others stay.
func confirmPlan(w io.Writer, st style, plan checkpoint.Plan, ask func(string) bool) (force, proceed bool, del []string) {
	if len(plan.Restore)+len(plan.Conflicts)+len(plan.Unkept) == 0 {
		if len(plan.Unrestorable) > 0 {
			fmt.Fprintf(w, "Only files whose content was not kept changed (%s): nothing can be reverted.\n", linePaths(plan.Unrestorable))
		} else {
			fmt.Fprintln(w, "The files are already as they were.")
		}
		return false, false, nil
	}
	for _, c := range plan.Restore {
		fmt.Fprintf(w, "  %s\n", restoreLine(c))
	}
	for _, p := range plan.Unrestorable {
		fmt.Fprintf(w, "  %s %s (its earlier content was not kept: left as it is)\n", st.yellow("!"), visible.Line(p))
	}
	fmt.Fprintln(w, st.dim(kernelNote))
	if len(plan.Conflicts) > 0 {
		fmt.Fprintln(w, st.yellow("Changed again since (reverting loses those changes):"))
		for _, c := range plan.Conflicts {
			fmt.Fprintf(w, "  %s\n", restoreLine(c))
		}
	}
	for _, u := range plan.Unkept {
		fmt.Fprintf(w, "  %s %s (%s) was created by these changes and its content was not kept: deleting it cannot be undone.\n",
			st.yellow("!"), visible.Line(u.Path), sizeText(u.Size))
		if ask(fmt.Sprintf("Delete %s?", visible.Line(u.Path))) {
			del = append(del, u.Path)
		}
	}
	for _, p := range plan.Protected {
		fmt.Fprintf(w, "%s %s: %s\n", st.yellow("Protected file"), visible.Line(p.Path), checkpoint.ProtectedWarning)
		fmt.Fprintf(w, "  now:\n%s  after the revert:\n%s", indentText(p.Current), indentText(p.Restored))
	}
	n := len(plan.Restore) + len(plan.Conflicts)
	switch {
	case n == 0 && len(del) == 0:
		fmt.Fprintln(w, "Nothing else to revert.")
		return false, false, nil
	case len(plan.Conflicts) > 0:
		force = true
		proceed = ask(fmt.Sprintf("Revert %d files, overwriting the %d changed since?", n, len(plan.Conflicts)))
	case len(plan.Protected) > 0:
		force = true
		proceed = ask(fmt.Sprintf("Revert %d files, changing %d protected files?", n, len(plan.Protected)))
	default:
		proceed = ask(fmt.Sprintf("Revert %d files?", n+len(del)))
	}
	if !proceed {
		return false, false, nil
	}
	return force, true, del
}

// indentText shows a protected file's version, escaped, indented, one
// line per line ("(none)" for a missing file).
// linePaths joins file names for one line of text, each escaped.
func linePaths(paths []string) string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = visible.Line(p)
	}
	return strings.Join(out, ", ")
}

func indentText(s string) string {
	if s == "" {
		return "    (none)\n"
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		b.WriteString("    " + visible.String(l) + "\n")
	}
	return b.String()
}

// sizeText says a file size for people.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// restoreLine says what reverting does to one file: the change is from its
// current state to the one it is restored to.
func restoreLine(c checkpoint.Change) string {
	switch c.Status {
	case checkpoint.Added:
		return "restore " + visible.Line(c.Path) + " (deleted since)"
	case checkpoint.Deleted:
		return "delete  " + visible.Line(c.Path) + " (it did not exist before)"
	}
	return "restore " + visible.Line(c.Path)
}

// RunCheckpoints is `freeact checkpoints list|diff|revert`.
func RunCheckpoints(ctx context.Context, args []string, b adapter.Build, s adapter.Streams) error {
	usage := func() error {
		return adapter.UsageError{Err: errors.New("checkpoints takes list, diff [ID], revert [ID], finish or rollback: e.g. freeact checkpoints revert --workspace DIR")}
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(s.Out, "Usage: freeact checkpoints list|diff|revert|finish|rollback [--workspace DIR] [--yes] [--force] [ID]")
			return nil
		}
		return usage()
	}
	sub := args[0]
	fs := flag.NewFlagSet("checkpoints "+sub, flag.ContinueOnError)
	ws := fs.String("workspace", ".", "the workspace `directory`")
	yes := fs.Bool("yes", false, "revert without asking")
	force := fs.Bool("force", false, "also revert files changed since (their changes are lost)")
	if err := adapter.ParseFlags(fs, args[1:], s.Err); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return adapter.UsageError{Err: fmt.Errorf("checkpoints %s takes at most one ID, got %q", sub, fs.Args())}
	}
	id := fs.Arg(0)
	dir, err := filepath.Abs(*ws)
	if err != nil {
		return err
	}
	// The same secrets and protected files as the agent's store.
	opts := checkpoint.Options{}
	if cfg, err := config.Load(dir, config.LoadOptions{}); err == nil {
		var perm *permission.Manager
		// Open writes the default rules where there are none (their ask
		// rules are .env's, secrets anyway): only open existing ones.
		if _, err := os.Stat(filepath.Join(cfg.FreeactDir, permission.FileName)); err == nil {
			perm, _ = permission.Open(dir)
		}
		opts = ckpt.StoreOptions(cfg, perm)
	}
	store, err := checkpoint.Open(checkpoint.Dir(b.Dirs.Checkpoints(), dir), dir, opts)
	if err != nil {
		return err
	}
	defer store.Close()
	st := newStyle(s.Out)
	late, err := store.Recover(ctx)
	for _, r := range late {
		fmt.Fprintln(s.Out, st.yellow(fmt.Sprintf("freeact stopped while action %s was running (turn %d: %s); what it changed was recorded now.", r.ID, r.Turn, r.Label)))
	}
	if err != nil {
		return err
	}
	in, err := store.InterruptedRevert()
	if err != nil {
		return err
	}
	if in != nil && sub != "finish" && sub != "rollback" {
		fmt.Fprintln(s.Out, st.yellow(interruptedText(in)))
	}
	records, err := store.Records()
	if err != nil {
		return err
	}
	pick := func() ([]checkpoint.Record, error) {
		if id == "" {
			if id = checkpoint.LastTurn(records, ""); id == "" {
				return nil, fmt.Errorf("no checkpoints with changes in %s", dir)
			}
		}
		return store.Find(id)
	}
	switch sub {
	case "finish", "rollback":
		if id != "" {
			return adapter.UsageError{Err: fmt.Errorf("checkpoints %s takes no ID", sub)}
		}
		if sub == "rollback" {
			if err := store.RollbackRevert(ctx); err != nil {
				return err
			}
			fmt.Fprintln(s.Out, "The revert was rolled back: the files are as they were before it.")
			return nil
		}
		rec, err := store.FinishRevert(ctx)
		if err != nil {
			return err
		}
		if rec == nil {
			fmt.Fprintln(s.Out, "The revert is finished; it changed nothing.")
			return nil
		}
		fmt.Fprintf(s.Out, "The revert is finished: %d files, checkpoint %s (revert it to take this back).\n", len(rec.Changes), rec.ID)
		return nil
	case "list":
		if id != "" {
			return adapter.UsageError{Err: errors.New("checkpoints list takes no ID")}
		}
		writeRecords(s.Out, st, records)
		return nil
	case "diff":
		rs, err := pick()
		if err != nil {
			return err
		}
		diffs, err := store.Diff(ctx, rs)
		if err != nil {
			return err
		}
		writeDiffs(s.Out, st, diffs)
		return nil
	case "revert":
		rs, err := pick()
		if err != nil {
			return err
		}
		plan, err := store.PlanRevert(ctx, rs)
		if err != nil {
			return err
		}
		fmt.Fprintln(s.Out, st.bold(describeRecords(id, rs)))
		lines := make(chan string)
		go readLines(s.In, lines)
		ask := func(q string) bool {
			if *yes {
				return true
			}
			fmt.Fprintf(s.Out, "%s [y/N] ", q)
			l, ok := <-lines
			return ok && (strings.EqualFold(strings.TrimSpace(l), "y") || strings.EqualFold(strings.TrimSpace(l), "yes"))
		}
		if *yes && len(plan.Conflicts) > 0 && !*force {
			return fmt.Errorf("%d files changed since (%s): add --force to overwrite them", len(plan.Conflicts), conflictPaths(plan))
		}
		if *yes && len(plan.Protected) > 0 && !*force {
			return fmt.Errorf("the revert changes protected files (%s): add --force to change them", protectedPaths(plan))
		}
		f, proceed, del := confirmPlan(s.Out, st, plan, ask)
		if !proceed {
			fmt.Fprintln(s.Out, "Nothing was reverted.")
			return nil
		}
		rec, _, err := store.Revert(ctx, rs, checkpoint.Info{Session: rs[0].Session, Turn: rs[0].Turn, DeleteUnkept: del}, f || *force)
		if err != nil {
			return err
		}
		if rec == nil {
			fmt.Fprintln(s.Out, "The files were already as they were.")
			return nil
		}
		fmt.Fprintf(s.Out, "Reverted %d files: checkpoint %s (revert it to take this back).\n", len(rec.Changes), rec.ID)
		return nil
	}
	return usage()
}

func protectedPaths(p checkpoint.Plan) string {
	var out []string
	for _, c := range p.Protected {
		out = append(out, visible.Line(c.Path))
	}
	return strings.Join(out, ", ")
}

func conflictPaths(p checkpoint.Plan) string {
	var out []string
	for _, c := range p.Conflicts {
		out = append(out, visible.Line(c.Path))
	}
	return strings.Join(out, ", ")
}

func readLines(r io.Reader, out chan<- string) {
	defer close(out)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		out <- sc.Text()
	}
}

// describeRecords says what a revert of the records id names takes back.
func describeRecords(id string, rs []checkpoint.Record) string {
	r := rs[0]
	switch {
	case r.TurnID == id:
		return fmt.Sprintf("Turn %d (%s): %s", r.Turn, r.TurnID, visible.Line(r.Prompt))
	case r.Kind == checkpoint.KindRevert:
		return "Undo the revert " + r.ID + ": " + visible.Line(r.Label)
	}
	return "Action " + r.ID + ": " + visible.Line(r.Label)
}

// writeRecords lists checkpoints by turn, newest first, with their
// actions.
func writeRecords(w io.Writer, st style, rs []checkpoint.Record) {
	if len(rs) == 0 {
		fmt.Fprintln(w, "No checkpoints with changes yet.")
		return
	}
	reverted := checkpoint.RevertedBy(rs)
	type group struct {
		head    checkpoint.Record
		actions []checkpoint.Record
	}
	var groups []*group
	byTurn := map[string]*group{}
	for _, r := range rs {
		if r.Kind == checkpoint.KindAction && r.TurnID != "" {
			if g, ok := byTurn[r.TurnID]; ok {
				g.actions = append(g.actions, r)
				continue
			}
			g := &group{head: r, actions: []checkpoint.Record{r}}
			byTurn[r.TurnID] = g
			groups = append(groups, g)
			continue
		}
		groups = append(groups, &group{head: r})
	}
	fmt.Fprintln(w, st.dim(fmt.Sprintf("%-10s %-9s %-16s %5s  %s", "ID", "SESSION", "TIME", "FILES", "WHAT")))
	for i := len(groups) - 1; i >= 0; i-- {
		g := groups[i]
		r := g.head
		when := r.Time.Local().Format(time.DateOnly + " 15:04")
		session := r.Session
		if len(session) > 8 {
			session = session[:8]
		}
		state := ""
		if len(g.actions) > 0 {
			all := true
			for _, a := range g.actions {
				all = all && reverted[a.ID] != ""
			}
			if all {
				state = st.dim(" (reverted)")
			}
			files := map[string]bool{}
			for _, a := range g.actions {
				for _, c := range a.Changes {
					files[c.Path] = true
				}
			}
			fmt.Fprintf(w, "%-10s %-9s %-16s %5d  %s%s\n", r.TurnID, session, when, len(files), st.bold(fmt.Sprintf("turn %d: %s", r.Turn, visible.Line(r.Prompt))), state)
			for _, a := range g.actions {
				s := ""
				if a.Late {
					s = st.yellow(" (recorded late: freeact stopped during it)")
				}
				if reverted[a.ID] != "" {
					s += st.dim(" (reverted)")
				}
				fmt.Fprintf(w, "  %-8s %-9s %-16s %5d  %s%s\n", a.ID, "", "", len(a.Changes), visible.Line(a.Label), s)
			}
			continue
		}
		if reverted[r.ID] != "" {
			state = st.dim(" (undone)")
		}
		fmt.Fprintf(w, "%-10s %-9s %-16s %5d  %s%s\n", r.ID, session, when, len(r.Changes), visible.Line(r.Label), state)
	}
	fmt.Fprintln(w, st.dim("`freeact checkpoints diff ID` shows a turn or action, `revert ID` takes it back (a revert's ID undoes it)."))
}
