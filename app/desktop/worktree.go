package desktop

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/freeact/desktop/agent/worktree"
	"github.com/freeact/desktop/app/adapter"
)

// WorktreeInfo is the git worktree the open workspace is: the window shows
// its branch and offers Review, Merge back and Remove.
type WorktreeInfo struct {
	Name       string `json:"name"`
	Branch     string `json:"branch"`
	BaseBranch string `json:"baseBranch"`
	BaseCommit string `json:"baseCommit"`
	Path       string `json:"path"`
	// Main is the main checkout's workspace folder, opened again when the
	// worktree is removed.
	Main string `json:"main"`
}

// WorktreeProblem is a worktree failure the window shows with its offer:
// Kind names it (worktree.Kind), Files are the unsaved files of a removal
// or the conflicts of a merge, Suggest a free name.
type WorktreeProblem struct {
	Kind    string   `json:"kind"`
	Message string   `json:"message"`
	Offer   string   `json:"offer"`
	Files   []string `json:"files"`
	Suggest string   `json:"suggest"`
	// Worktree names the worktree of an interrupted merge
	// (RollBackWorktreeMerge).
	Worktree string `json:"worktree"`
}

// WorktreeOutcome is what a worktree action gave: a Problem with an offer,
// or its result.
type WorktreeOutcome struct {
	Problem   *WorktreeProblem  `json:"problem,omitempty"`
	Worktree  *WorktreeInfo     `json:"worktree,omitempty"`
	Workspace *WorkspaceInfo    `json:"workspace,omitempty"`
	Review    *worktree.Review  `json:"review,omitempty"`
	Merged    *worktree.Merged  `json:"merged,omitempty"`
	Removed   *worktree.Removed `json:"removed,omitempty"`
	// Proposed is a free name for a new worktree.
	Proposed string `json:"proposed,omitempty"`
}

// outcome turns a worktree failure into a Problem; other errors stay
// errors.
func outcome(err error) (WorktreeOutcome, error) {
	var e *worktree.Error
	if errors.As(err, &e) {
		files := e.Files
		if files == nil {
			files = []string{}
		}
		return WorktreeOutcome{Problem: &WorktreeProblem{Kind: string(e.Kind), Message: e.Msg, Offer: e.Offer, Files: files, Suggest: e.Suggest, Worktree: e.Worktree}}, nil
	}
	return WorktreeOutcome{}, err
}

func (d *Desktop) worktrees() *worktree.Manager { return adapter.Worktrees(d.build.Dirs) }

func info(mf *worktree.Manifest) *WorktreeInfo {
	return &WorktreeInfo{Name: mf.Name, Branch: mf.Branch, BaseBranch: mf.BaseBranch, BaseCommit: mf.BaseCommit,
		Path: mf.Workdir(), Main: filepath.Join(mf.Repo, mf.Sub)}
}

// CurrentWorktree is the worktree the open workspace is, or nil.
func (d *Desktop) CurrentWorktree() *WorktreeInfo {
	ws, err := d.current()
	if err != nil {
		return nil
	}
	if mf := d.worktrees().ByWorkdir(ws.dir); mf != nil {
		return info(mf)
	}
	return nil
}

// ProposeWorktree proposes a free name for a new conversation in a
// worktree of the open workspace's repository, or says why there can be
// none (not a git repository, git missing).
func (d *Desktop) ProposeWorktree() (WorktreeOutcome, error) {
	ws, err := d.current()
	if err != nil {
		return WorktreeOutcome{}, err
	}
	dir := ws.dir
	if mf := d.worktrees().ByWorkdir(dir); mf != nil {
		dir = filepath.Join(mf.Repo, mf.Sub) // a new one starts from the main checkout
	}
	name, err := d.worktrees().Propose(context.Background(), dir)
	if err != nil {
		return outcome(err)
	}
	return WorktreeOutcome{Proposed: name}, nil
}

// NewWorktreeConversation creates the worktree name (branch freeact/NAME
// from the main checkout's branch) and opens the window on it: a new
// conversation whose kernel runs there.
func (d *Desktop) NewWorktreeConversation(name string) (WorktreeOutcome, error) {
	ws, err := d.current()
	if err != nil {
		return WorktreeOutcome{}, err
	}
	dir := ws.dir
	if mf := d.worktrees().ByWorkdir(dir); mf != nil {
		dir = filepath.Join(mf.Repo, mf.Sub)
	}
	mf, err := d.worktrees().Create(context.Background(), dir, name, worktree.CreateOptions{})
	if err != nil {
		return outcome(err)
	}
	wi, err := d.OpenWorkspace(mf.Workdir(), "")
	if err != nil {
		return WorktreeOutcome{}, fmt.Errorf("open worktree %s: %w", name, err)
	}
	return WorktreeOutcome{Worktree: info(mf), Workspace: &wi}, nil
}

// openWorktree is the manifest of the open workspace, which must be a
// worktree.
func (d *Desktop) openWorktree() (*worktree.Manifest, *workspace, error) {
	ws, err := d.current()
	if err != nil {
		return nil, nil, err
	}
	mf := d.worktrees().ByWorkdir(ws.dir)
	if mf == nil {
		return nil, nil, fmt.Errorf("%s is not a worktree of a conversation: start one with New conversation in a worktree", ws.dir)
	}
	// The manifest names the conversation working there, which
	// OpenWorktreeConversation resumes.
	ws.mu.Lock()
	session := ws.session
	ws.mu.Unlock()
	if session != "" && session != mf.ConversationID {
		if err := d.worktrees().SetConversation(mf, session); err != nil {
			d.log.Warn("record the worktree's conversation", "err", err)
		}
	}
	return mf, ws, nil
}

// ReviewWorktree is the open worktree's diff (committed, uncommitted and
// untracked) against the commit it started from.
func (d *Desktop) ReviewWorktree() (WorktreeOutcome, error) {
	mf, _, err := d.openWorktree()
	if err != nil {
		return WorktreeOutcome{}, err
	}
	rv, err := d.worktrees().Review(context.Background(), mf)
	if err != nil {
		return outcome(err)
	}
	if rv.Files == nil {
		rv.Files = []worktree.FileDiff{}
	}
	return WorktreeOutcome{Review: rv, Worktree: info(mf)}, nil
}

// CommitWorktree commits the open worktree's uncommitted files to its
// branch.
func (d *Desktop) CommitWorktree(message string) (WorktreeOutcome, error) {
	mf, _, err := d.openWorktree()
	if err != nil {
		return WorktreeOutcome{}, err
	}
	if err := d.worktrees().Commit(context.Background(), mf, message); err != nil {
		return outcome(err)
	}
	return WorktreeOutcome{Worktree: info(mf)}, nil
}

// MergeWorktree merges (or squashes) the open worktree's branch into its
// base branch in the main checkout; a conflict or a main checkout that is
// dirty or on another branch is a Problem, and nothing changed.
func (d *Desktop) MergeWorktree(squash bool) (WorktreeOutcome, error) {
	mf, _, err := d.openWorktree()
	if err != nil {
		return WorktreeOutcome{}, err
	}
	res, err := d.worktrees().Merge(context.Background(), mf, squash)
	if err != nil {
		return outcome(err)
	}
	return WorktreeOutcome{Merged: res, Worktree: info(mf)}, nil
}

// Choices of RemoveWorktree for files not committed to the branch.
const (
	RemoveAsk    = ""       // refuse, listing them (the cleanup dialog's question)
	RemoveCommit = "commit" // commit them to the branch first
	RemoveDelete = "delete" // delete them: confirmed must be the list shown
	// commit the others, delete the ignored ones (never committed):
	// confirmed must be the list of ignored ones shown
	RemoveCommitDelete = "commit-delete"
)

// RemoveWorktree removes the open worktree and opens the main checkout
// again. With uncommitted, untracked or ignored files that may hold work
// it is a Problem listing them (choice ""; ignored ones marked "ignored"),
// unless choice commits them (never the ignored ones) or deletes the
// confirmed list.
// Its conversation's kernel is stopped before the folder goes.
func (d *Desktop) RemoveWorktree(choice string, confirmed []string) (WorktreeOutcome, error) {
	mf, ws, err := d.openWorktree()
	if err != nil {
		return WorktreeOutcome{}, err
	}
	m := d.worktrees()
	ctx := context.Background()
	opts := worktree.RemoveOptions{}
	switch choice {
	case RemoveAsk:
	case RemoveCommit:
		opts.Commit = true
	case RemoveDelete:
		opts.Discard, opts.Confirmed = true, confirmed
	case RemoveCommitDelete:
		opts.Commit, opts.Discard, opts.Confirmed = true, true, confirmed
	default:
		return WorktreeOutcome{}, fmt.Errorf("remove worktree: unknown choice %q (commit, delete, commit-delete or none)", choice)
	}
	// Ask first, while the conversation still runs there.
	if _, _, err := m.CheckRemove(ctx, mf, opts); err != nil {
		return outcome(err)
	}
	// Other live conversations in the worktree, out of view: one that runs
	// or waits keeps the folder; the idle ones stop with it.
	others := d.liveIn(ws.dir, ws)
	for _, w := range others {
		if w.busy() {
			return outcome(&worktree.Error{Kind: worktree.InUse, Msg: fmt.Sprintf("another conversation runs in worktree %s", mf.Name),
				Offer: "let it finish or stop it, then remove the worktree"})
		}
	}
	d.shutDown(others)
	// The conversation's kernel and agent stop before the folder goes.
	ws.mu.Lock()
	session := ws.session
	ws.mu.Unlock()
	ws.close()
	main := filepath.Join(mf.Repo, mf.Sub)
	res, rerr := m.Remove(ctx, mf, opts)
	if rerr != nil {
		// Nothing was removed: the conversation goes on there.
		if _, oerr := d.OpenWorkspace(mf.Workdir(), session); oerr != nil {
			d.log.Warn("reopen the worktree", "err", oerr)
		}
		return outcome(rerr)
	}
	wi, oerr := d.OpenWorkspace(main, "")
	if oerr != nil {
		return WorktreeOutcome{Removed: res}, fmt.Errorf("worktree removed; open %s: %w", main, oerr)
	}
	return WorktreeOutcome{Removed: res, Workspace: &wi}, nil
}

// RollBackWorktreeMerge puts the main checkout back where the interrupted
// merge of worktree name found it (a Problem of kind merge-interrupted
// offers it).
func (d *Desktop) RollBackWorktreeMerge(name string) (WorktreeOutcome, error) {
	ws, err := d.current()
	if err != nil {
		return WorktreeOutcome{}, err
	}
	dir := ws.dir
	if mf := d.worktrees().ByWorkdir(dir); mf != nil {
		dir = filepath.Join(mf.Repo, mf.Sub)
	}
	if err := d.worktrees().RollBack(context.Background(), dir, name); err != nil {
		return outcome(err)
	}
	return WorktreeOutcome{}, nil
}

// WorktreeEntry is a worktree of the open workspace's repository in the
// window's list.
type WorktreeEntry struct {
	WorktreeInfo
	// Missing: its folder was deleted outside the app (ForgetWorktree
	// prunes it; the branch stays).
	Missing bool `json:"missing"`
	// Open: the window is on it now.
	Open bool `json:"open"`
}

// mainDir is the main checkout's workspace folder of the open workspace
// (itself, or the one its worktree came from).
func (d *Desktop) mainDir() (string, *workspace, error) {
	ws, err := d.current()
	if err != nil {
		return "", nil, err
	}
	if mf := d.worktrees().ByWorkdir(ws.dir); mf != nil {
		return filepath.Join(mf.Repo, mf.Sub), ws, nil
	}
	return ws.dir, ws, nil
}

// ListWorktrees lists the worktrees of the open workspace's repository,
// those whose folder was deleted outside the app marked Missing.
func (d *Desktop) ListWorktrees() ([]WorktreeEntry, error) {
	dir, ws, err := d.mainDir()
	if err != nil {
		return nil, err
	}
	list, err := d.worktrees().List(context.Background(), dir)
	if err != nil {
		return nil, err
	}
	out := []WorktreeEntry{}
	for _, st := range list {
		mf := st.Manifest
		out = append(out, WorktreeEntry{WorktreeInfo: *info(&mf), Missing: st.Missing, Open: filepath.Clean(mf.Workdir()) == filepath.Clean(ws.dir)})
	}
	return out, nil
}

// OpenWorktreeConversation opens the window on worktree name again; a
// folder deleted outside the app is a Problem, and is not made again.
func (d *Desktop) OpenWorktreeConversation(name string) (WorktreeOutcome, error) {
	dir, _, err := d.mainDir()
	if err != nil {
		return WorktreeOutcome{}, err
	}
	mf, err := d.worktrees().Open(context.Background(), dir, name)
	if err != nil {
		return outcome(err)
	}
	wi, err := d.OpenWorkspace(mf.Workdir(), mf.ConversationID)
	if err != nil {
		// The recorded conversation may be gone: a new one there.
		if wi, err = d.OpenWorkspace(mf.Workdir(), ""); err != nil {
			return WorktreeOutcome{}, fmt.Errorf("open worktree %s: %w", name, err)
		}
	}
	return WorktreeOutcome{Worktree: info(mf), Workspace: &wi}, nil
}

// ForgetWorktree forgets a worktree whose folder was deleted outside the
// app (git worktree prune); its branch is kept. A worktree whose folder
// exists is removed only by RemoveWorktree, from the window on it.
func (d *Desktop) ForgetWorktree(name string) (WorktreeOutcome, error) {
	dir, _, err := d.mainDir()
	if err != nil {
		return WorktreeOutcome{}, err
	}
	ctx := context.Background()
	mf, err := d.worktrees().Open(ctx, dir, name)
	if err == nil {
		return outcome(&worktree.Error{Kind: worktree.Exists, Msg: fmt.Sprintf("the folder of worktree %s is there", name),
			Offer: "open it and use Remove, which asks about files not committed"})
	}
	if !worktree.IsKind(err, worktree.Missing) {
		return outcome(err)
	}
	res, err := d.worktrees().Remove(ctx, mf, worktree.RemoveOptions{})
	if err != nil {
		return outcome(err)
	}
	return WorktreeOutcome{Removed: res}, nil
}
