package terminal

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/freeact/desktop/agent/worktree"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/internal/visible"
)

// worktreeEvent says, in --json mode, which worktree a run works in or
// what a worktree command found.
type worktreeEvent struct {
	Type    string `json:"type"`
	AgentID string `json:"agent_id,omitempty"`
	*worktree.Manifest
	New     bool   `json:"new,omitempty"`
	Workdir string `json:"workdir"`
}

// worktreeError is a worktree failure with its offer, in --json mode.
type worktreeError struct {
	Type    string   `json:"type"`
	Kind    string   `json:"kind"`
	Message string   `json:"message"`
	Offer   string   `json:"offer,omitempty"`
	Files   []string `json:"files,omitempty"`
	Suggest string   `json:"suggest,omitempty"`
}

// runWorktree opens or creates the worktree of `run --worktree NAME` and
// returns the folder the conversation works in.
func runWorktree(ctx context.Context, f runFlags, b adapter.Build, s adapter.Streams) (*worktree.Manifest, error) {
	m := adapter.Worktrees(b.Dirs)
	mf, created, err := m.OpenOrCreate(ctx, f.workspace, f.worktree)
	if err != nil {
		if f.json {
			emitWorktreeErr(s.Out, err, "main")
		}
		return nil, fmt.Errorf("--worktree %s: %w", f.worktree, err)
	}
	if f.json {
		fmt.Fprintln(s.Out, string(adapter.MustJSON(worktreeEvent{Type: "Worktree", AgentID: "main", Manifest: mf, New: created, Workdir: mf.Workdir()})))
	} else {
		verb := "Continuing in"
		if created {
			verb = "Created"
		}
		fmt.Fprintf(s.Err, "%s worktree %s: branch %s from %s at %.12s, in %s\n", verb, mf.Name, mf.Branch, mf.BaseBranch, mf.BaseCommit, mf.Workdir())
		for _, sk := range mf.Skipped {
			fmt.Fprintf(s.Err, "warning: %s not copied: %s\n", IncludeName, sk)
		}
	}
	return mf, nil
}

// IncludeName is the file that lists what a new worktree gets copies of.
const IncludeName = worktree.IncludeFile

func emitWorktreeErr(w io.Writer, err error, agentID string) {
	ev := worktreeError{Type: "WorktreeError", Message: err.Error()}
	var e *worktree.Error
	if errors.As(err, &e) {
		ev.Kind, ev.Message, ev.Offer, ev.Files, ev.Suggest = string(e.Kind), e.Msg, e.Offer, e.Files, e.Suggest
	}
	b := adapter.MustJSON(ev)
	if agentID != "" {
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		m["agent_id"] = agentID
		b = adapter.MustJSON(m)
	}
	fmt.Fprintln(w, string(b))
}

// RunWorktree is `freeact worktree list|review|merge|commit|remove|rollback`.
func RunWorktree(ctx context.Context, args []string, b adapter.Build, s adapter.Streams) error {
	usage := "freeact worktree list|review NAME|merge NAME [--squash]|commit NAME [-m MSG]|remove NAME [--commit|--keep|--discard]|rollback NAME [--workspace DIR] [--json]"
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(s.Out, "Usage: "+usage)
			return nil
		}
		return adapter.UsageError{Err: errors.New("worktree takes a command: " + usage)}
	}
	sub := args[0]
	fs := flag.NewFlagSet("worktree "+sub, flag.ContinueOnError)
	ws := fs.String("workspace", ".", "the workspace `directory` (the main checkout)")
	jsonMode := fs.Bool("json", false, "write JSON lines; the cleanup questions carry an id and are answered by JSON lines on stdin")
	squash := fs.Bool("squash", false, "merge: one commit on the base branch instead of a merge commit")
	message := fs.String("m", "", "commit: the commit `message`")
	commit := fs.Bool("commit", false, "remove: commit uncommitted files to the branch first")
	keep := fs.Bool("keep", false, "remove: keep the worktree when it has uncommitted files")
	discard := fs.Bool("discard", false, "remove: delete uncommitted and ignored files (still asks to confirm their list)")
	// Flags may follow the name: parse around it.
	var name string
	rest := args[1:]
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		name, rest = rest[0], rest[1:]
	}
	if err := adapter.ParseFlags(fs, rest, s.Err); err != nil {
		return err
	}
	if name == "" && fs.NArg() > 0 {
		name = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return adapter.UsageError{Err: fmt.Errorf("worktree %s takes one name, got %q too", sub, fs.Args())}
	}
	if sub != "list" && name == "" {
		return adapter.UsageError{Err: fmt.Errorf("worktree %s needs the worktree's NAME (freeact worktree list shows them)", sub)}
	}
	w := &wtCLI{ctx: ctx, m: adapter.Worktrees(b.Dirs), s: s, json: *jsonMode, ws: *ws, in: bufio.NewScanner(s.In)}
	w.in.Buffer(make([]byte, 64<<10), 1<<20)
	var err error
	switch sub {
	case "list":
		err = w.list()
	case "review":
		err = w.review(name)
	case "merge":
		err = w.merge(name, *squash)
	case "commit":
		err = w.commit(name, *message)
	case "remove":
		err = w.remove(name, *commit, *keep, *discard)
	case "rollback":
		err = w.m.RollBack(ctx, w.ws, name)
		if err == nil {
			w.say("rollback", "The main checkout is back where the interrupted merge of "+name+" found it.")
		}
	default:
		return adapter.UsageError{Err: fmt.Errorf("unknown worktree command %q: %s", sub, usage)}
	}
	if err != nil && w.json {
		emitWorktreeErr(s.Out, err, "")
		return adapter.ExitStatus(1)
	}
	return err
}

type wtCLI struct {
	ctx  context.Context
	m    *worktree.Manager
	s    adapter.Streams
	json bool
	ws   string
	in   *bufio.Scanner
	next int
}

func (w *wtCLI) emit(v any) { fmt.Fprintln(w.s.Out, string(adapter.MustJSON(v))) }

func (w *wtCLI) say(cmd, text string) {
	if w.json {
		w.emit(commandOutput{Type: "CommandOutput", Command: "worktree " + cmd, Text: text})
		return
	}
	fmt.Fprintln(w.s.Out, text)
}

func (w *wtCLI) list() error {
	list, err := w.m.List(w.ctx, w.ws)
	if err != nil {
		return err
	}
	if w.json {
		if list == nil {
			list = []worktree.Status{}
		}
		w.emit(struct {
			Type      string            `json:"type"`
			Worktrees []worktree.Status `json:"worktrees"`
		}{"Worktrees", list})
		return nil
	}
	if len(list) == 0 {
		fmt.Fprintln(w.s.Out, "No worktrees. freeact run --worktree NAME creates one.")
	}
	for _, st := range list {
		state := st.Path
		if st.Missing {
			state = "folder deleted outside the app: freeact worktree remove " + st.Name + " forgets it (the branch stays)"
		}
		fmt.Fprintf(w.s.Out, "%-20s %-28s from %s  %s\n", st.Name, st.Branch, st.BaseBranch, state)
	}
	return nil
}

func (w *wtCLI) open(name string) (*worktree.Manifest, error) {
	return w.m.Open(w.ctx, w.ws, name)
}

func (w *wtCLI) review(name string) error {
	mf, err := w.open(name)
	if err != nil {
		return err
	}
	rv, err := w.m.Review(w.ctx, mf)
	if err != nil {
		return err
	}
	if w.json {
		if rv.Files == nil {
			rv.Files = []worktree.FileDiff{}
		}
		w.emit(struct {
			Type string `json:"type"`
			*worktree.Review
		}{"WorktreeReview", rv})
		return nil
	}
	fmt.Fprintf(w.s.Out, "Worktree %s (%s) against %s at %.12s:\n", rv.Name, rv.Branch, rv.BaseBranch, rv.BaseCommit)
	if len(rv.Files) == 0 {
		fmt.Fprintln(w.s.Out, "No files differ.")
	}
	st := newStyle(w.s.Out)
	for _, f := range rv.Files {
		fmt.Fprintln(w.s.Out, st.bold(f.Status+" "+visible.Line(f.Path)))
		for _, l := range strings.Split(strings.TrimRight(f.Patch, "\n"), "\n") {
			fmt.Fprintln(w.s.Out, visible.String(l))
		}
	}
	if len(rv.Uncommitted) > 0 {
		fmt.Fprintf(w.s.Out, "%d of them not committed yet (freeact worktree commit %s).\n", len(rv.Uncommitted), name)
	}
	return nil
}

func (w *wtCLI) merge(name string, squash bool) error {
	mf, err := w.open(name)
	if err != nil {
		return err
	}
	res, err := w.m.Merge(w.ctx, mf, squash)
	if err != nil {
		return err
	}
	if w.json {
		w.emit(struct {
			Type string `json:"type"`
			*worktree.Merged
		}{"WorktreeMerged", res})
		return nil
	}
	switch {
	case res.UpToDate:
		fmt.Fprintf(w.s.Out, "%s already holds everything of %s.\n", res.BaseBranch, mf.Branch)
	case squash:
		fmt.Fprintf(w.s.Out, "Squashed %s into %s as %.12s.\n", mf.Branch, res.BaseBranch, res.Commit)
	default:
		fmt.Fprintf(w.s.Out, "Merged %s into %s as %.12s.\n", mf.Branch, res.BaseBranch, res.Commit)
	}
	return nil
}

func (w *wtCLI) commit(name, message string) error {
	mf, err := w.open(name)
	if err != nil {
		return err
	}
	cs, err := w.m.Uncommitted(w.ctx, mf)
	if err != nil {
		return err
	}
	if len(cs) == 0 {
		w.say("commit", "Nothing to commit in worktree "+name+".")
		return nil
	}
	if err := w.m.Commit(w.ctx, mf, message); err != nil {
		return err
	}
	w.say("commit", fmt.Sprintf("Committed %d files to %s.", len(cs), mf.Branch))
	return nil
}

// cleanupQuestion is the question of a removal with uncommitted files, in
// --json mode: answered by {"id":..,"action":"commit"|"keep"|"delete"} or
// the bare word.
type cleanupQuestion struct {
	Type     string   `json:"type"`
	ID       string   `json:"id"`
	Worktree string   `json:"worktree"`
	Branch   string   `json:"branch"`
	Files    []string `json:"files"`
	// Ignored are the entries of Files git ignores: never committed.
	Ignored []string `json:"ignored,omitempty"`
	Choices []string `json:"choices"`
}

// deleteQuestion is the second confirmation, naming how many go.
func deleteQuestion(files []string, verb string) string {
	if len(files) == 1 {
		return verb + "this file for good?"
	}
	return fmt.Sprintf("%sthese %d files for good?", verb, len(files))
}

func (w *wtCLI) remove(name string, commit, keep, discard bool) error {
	n := 0
	for _, b := range []bool{commit, keep, discard} {
		if b {
			n++
		}
	}
	if n > 1 {
		return adapter.UsageError{Err: errors.New("remove takes one of --commit, --keep and --discard")}
	}
	mf, err := w.m.Open(w.ctx, w.ws, name)
	if err != nil && !worktree.IsKind(err, worktree.Missing) {
		return err
	}
	opts := worktree.RemoveOptions{Commit: commit}
	res, err := w.m.Remove(w.ctx, mf, opts)
	var e *worktree.Error
	if errors.As(err, &e) && e.Kind == worktree.Unsaved {
		// Ignored files (marked so) are never committed: with them,
		// "commit" commits the others and asks to delete them.
		var ign []string
		for _, f := range e.Files {
			if worktree.IsIgnoredEntry(f) {
				ign = append(ign, f)
			}
		}
		choices := []string{"commit", "keep", "delete"}
		prompt := fmt.Sprintf("Worktree %s has files not committed to %s:\n  %s\n", name, mf.Branch, strings.Join(visibleAll(e.Files), "\n  "))
		switch {
		case len(ign) == len(e.Files):
			choices = []string{"keep", "delete"}
			prompt += "Ignored files are never committed. Keep the worktree (k), or delete them with it (d)? [K/d] "
		case len(ign) > 0:
			prompt += "Commit them to the branch, except the ignored ones, which are then deleted (c), keep the worktree (k), or delete them all with it (d)? [c/K/d] "
		default:
			prompt += "Commit them to the branch (c), keep the worktree (k), or delete them with it (d)? [c/K/d] "
		}
		choice := ""
		switch {
		case keep:
			choice = "keep"
		case discard:
			choice = "delete"
		default:
			choice = w.ask(cleanupQuestion{Type: "WorktreeCleanup", Worktree: name, Branch: mf.Branch, Files: e.Files, Ignored: ign, Choices: choices}, prompt)
		}
		if choice == "commit" && !slices.Contains(choices, "commit") {
			choice = "keep"
		}
		switch choice {
		case "commit":
			opts := worktree.RemoveOptions{Commit: true}
			if len(ign) > 0 {
				if !w.confirm(deleteQuestion(ign, "Commit the others and delete ")) {
					w.say("remove", "Kept worktree "+name+" at "+mf.Path+".")
					return nil
				}
				opts.Discard, opts.Confirmed = true, ign
			}
			res, err = w.m.Remove(w.ctx, mf, opts)
		case "delete":
			if !w.confirm(deleteQuestion(e.Files, "Delete ")) {
				w.say("remove", "Kept worktree "+name+".")
				return nil
			}
			res, err = w.m.Remove(w.ctx, mf, worktree.RemoveOptions{Commit: commit, Discard: true, Confirmed: e.Files})
		default:
			w.say("remove", "Kept worktree "+name+" at "+mf.Path+".")
			return nil
		}
	}
	if err != nil {
		return err
	}
	if w.json {
		w.emit(struct {
			Type string `json:"type"`
			Name string `json:"name"`
			*worktree.Removed
		}{"WorktreeRemoved", name, res})
		return nil
	}
	msg := "Removed worktree " + name + "."
	if res.Pruned {
		msg = "Forgot worktree " + name + ", whose folder was deleted outside the app (git worktree prune)."
	}
	if res.Committed {
		msg += " Its files were committed to " + res.Branch + " first."
	}
	if res.BranchKept {
		msg += " The branch " + res.Branch + " is kept: it holds commits " + mf.BaseBranch + " lacks (git branch -D " + res.Branch + " deletes it)."
	}
	if len(res.SessionsKept) > 0 {
		msg += fmt.Sprintf(" Its %d conversations moved to the main checkout.", len(res.SessionsKept))
	}
	fmt.Fprintln(w.s.Out, msg)
	return nil
}

func visibleAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = visible.Line(s)
	}
	return out
}

// line reads the next line of stdin; false at its end.
func (w *wtCLI) line() (string, bool) {
	if !w.in.Scan() {
		return "", false
	}
	return strings.TrimSpace(w.in.Text()), true
}

// ask asks the cleanup question; no answer keeps the worktree.
func (w *wtCLI) ask(q cleanupQuestion, prompt string) string {
	if w.json {
		w.next++
		q.ID = fmt.Sprintf("q%d", w.next)
		w.emit(q)
	} else {
		fmt.Fprint(w.s.Out, prompt)
	}
	for {
		l, ok := w.line()
		if !ok {
			return "keep"
		}
		ans := l
		if w.json && strings.HasPrefix(l, "{") {
			var r struct {
				ID     string `json:"id"`
				Action string `json:"action"`
			}
			if err := json.Unmarshal([]byte(l), &r); err != nil || r.ID != q.ID {
				fmt.Fprintf(w.s.Err, "answer %q: send {\"id\":%q,\"action\":\"commit|keep|delete\"}\n", l, q.ID)
				continue
			}
			ans = r.Action
		}
		switch strings.ToLower(ans) {
		case "c", "commit":
			return "commit"
		case "", "k", "keep":
			return "keep"
		case "d", "delete":
			return "delete"
		}
		fmt.Fprintf(w.s.Err, "answer %q: commit, keep or delete\n", l)
	}
}

// confirm asks the second confirmation; no answer is no.
func (w *wtCLI) confirm(question string) bool {
	id := ""
	if w.json {
		w.next++
		id = fmt.Sprintf("q%d", w.next)
		w.emit(struct {
			Type     string `json:"type"`
			ID       string `json:"id"`
			Question string `json:"question"`
		}{"Confirm", id, question})
	} else {
		fmt.Fprint(w.s.Out, question+" [y/N] ")
	}
	for {
		l, ok := w.line()
		if !ok {
			return false
		}
		ans := l
		if w.json && strings.HasPrefix(l, "{") {
			var r struct {
				ID     string `json:"id"`
				Action string `json:"action"`
			}
			if err := json.Unmarshal([]byte(l), &r); err != nil || r.ID != id {
				fmt.Fprintf(w.s.Err, "answer %q: send {\"id\":%q,\"action\":\"accept\"} or decline\n", l, id)
				continue
			}
			ans = map[string]string{"accept": "y", "decline": "n"}[r.Action]
		}
		switch strings.ToLower(ans) {
		case "y", "yes":
			return true
		case "", "n", "no":
			return false
		}
		fmt.Fprintf(w.s.Err, "answer %q: y or n\n", l)
	}
}
