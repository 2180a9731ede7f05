// Package worktree owns the git worktrees conversations run in: creating
// one on a new branch below the app's data folder (never inside the
// repository), copying in the ignored files the repository's
// .worktreeinclude lists, reviewing its changes against the commit it
// started from, merging or squashing it back into the base branch in the
// main checkout without ever half-applying, and removing it without losing
// work. It runs the git binary (no shell, arguments only, the repository's
// hooks and file-system monitor off, GIT_ variables that redirect git
// cleared) and writes outside git only below the worktree, without
// following links.
package worktree

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/freeact/desktop/internal/atomicfile"
)

// BranchPrefix is put before a worktree's name to make its branch.
const BranchPrefix = "freeact/"

// Kind says which failure an Error is, for front ends that offer a fix.
type Kind string

// The failures with an offer.
const (
	GitMissing  Kind = "git-missing"
	NotRepo     Kind = "not-a-repository"
	Detached    Kind = "detached-head"
	BadName     Kind = "bad-name"
	BranchTaken Kind = "branch-taken"
	Exists      Kind = "exists"
	NotFound    Kind = "not-found"
	Missing     Kind = "folder-missing"
	Unsaved     Kind = "unsaved-work"
	DirtyMain   Kind = "main-checkout-dirty"
	NotOnBase   Kind = "main-not-on-base"
	Conflict    Kind = "conflict"
	Interrupted Kind = "merge-interrupted"
	Tampered    Kind = "git-link-changed"
	Changed     Kind = "files-changed"
	InUse       Kind = "in-use"
)

// Error is a failure a person can act on: what is wrong, what to do, and
// the files concerned (the unsaved files of a removal, the conflicts of a
// merge).
type Error struct {
	Kind  Kind
	Msg   string
	Offer string
	Files []string
	// Suggest is a free name when the one asked for is taken.
	Suggest string
	// Worktree names the worktree concerned where the call did not (an
	// interrupted merge found by Recover).
	Worktree string
}

func (e *Error) Error() string {
	s := e.Msg
	if len(e.Files) > 0 {
		s += ": " + strings.Join(e.Files, ", ")
	}
	if e.Offer != "" {
		s += "; " + e.Offer
	}
	return s
}

// IsKind reports whether err is an *Error of kind k.
func IsKind(err error, k Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}

// Manager creates and removes the worktrees below Root.
type Manager struct {
	// Root is the folder worktrees and their manifests go in: the app's
	// data folder's worktrees/.
	Root string
	// Git is the git binary; "" finds git on PATH.
	Git string
	// Trace, when set, is told each git command's arguments and time
	// (the benchmark's breakdown).
	Trace func(args []string, took time.Duration)
}

// New is the manager of worktrees below dataDir/worktrees.
func New(dataDir string) *Manager { return &Manager{Root: filepath.Join(dataDir, "worktrees")} }

// State is where a worktree's creation got to.
type State string

// The states of a manifest.
const (
	Creating State = "creating"
	Ready    State = "ready"
)

// Manifest is what is known of one worktree, kept beside it.
type Manifest struct {
	Name string `json:"name"`
	// Repo is the main checkout's top folder; Sub the workspace below it
	// ("" for the top), so the conversation works in Path/Sub.
	Repo string `json:"repo"`
	Sub  string `json:"sub,omitempty"`
	Path string `json:"path"`
	// Branch is the worktree's own branch; BaseBranch and BaseCommit
	// where it started.
	Branch     string `json:"branch"`
	BaseBranch string `json:"base_branch"`
	BaseCommit string `json:"base_commit"`
	// GitDir is the worktree's own folder in the repository's .git, where
	// its .git file must keep pointing (checkLink).
	GitDir         string    `json:"git_dir,omitempty"`
	ConversationID string    `json:"conversation_id,omitempty"`
	Created        time.Time `json:"created"`
	State          State     `json:"state"`
	// PID is the process creating it, while State is Creating: another
	// process's creation still under way is not taken back.
	PID int `json:"pid,omitempty"`
	// Copied are the files .worktreeinclude brought in; Skipped the ones
	// it listed that were not copied (links, too large), with why.
	Copied  []string `json:"copied,omitempty"`
	Skipped []string `json:"skipped,omitempty"`
	// CopiedHashes are the SHA-256 of each copy .worktreeinclude made, so
	// a removal lists the copies edited since (ignored files are never
	// committed).
	CopiedHashes map[string]string `json:"copied_hashes,omitempty"`
}

// Workdir is the folder the conversation works in.
func (m *Manifest) Workdir() string { return filepath.Join(m.Path, m.Sub) }

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

// CheckName says what is wrong with a worktree's name.
func CheckName(name string) error {
	if !nameRE.MatchString(name) || strings.HasSuffix(name, ".lock") || strings.Contains(name, "..") || strings.HasSuffix(name, ".json") {
		return &Error{Kind: BadName, Msg: fmt.Sprintf("%q cannot name a worktree", name),
			Offer: "use letters, digits, '.', '_' and '-' (at most 63, starting with a letter or digit), for example fix-login"}
	}
	return nil
}

// repo is a main checkout as git sees it.
type repo struct{ top, sub string }

// openRepo finds the repository dir is in.
func (m *Manager) openRepo(ctx context.Context, dir string) (repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return repo{}, fmt.Errorf("workspace %s: %w", dir, err)
	}
	if _, err := m.gitPath(); err != nil {
		return repo{}, err
	}
	if _, err := os.Stat(abs); err != nil {
		return repo{}, fmt.Errorf("workspace %s: %w", abs, err)
	}
	top, err := m.git(ctx, abs, "rev-parse", "--show-toplevel")
	if err != nil || top == "" {
		return repo{}, &Error{Kind: NotRepo,
			Msg:   fmt.Sprintf("%s is not in a git repository", abs),
			Offer: "run git init there (and commit) to use worktrees, or start the conversation without a worktree"}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return repo{}, fmt.Errorf("workspace %s: %w", abs, err)
	}
	sub, err := filepath.Rel(top, real)
	if err != nil || strings.HasPrefix(sub, "..") {
		sub = "."
	}
	if sub == "." {
		sub = ""
	}
	return repo{top: top, sub: sub}, nil
}

// dir is the folder of a repository's worktrees and manifests.
func (m *Manager) dir(top string) string {
	h := sha256.Sum256([]byte(top))
	return filepath.Join(m.Root, filepath.Base(top)+"-"+hex.EncodeToString(h[:6]))
}

func (m *Manager) manifestPath(top, name string) string {
	return filepath.Join(m.dir(top), name+".json")
}

func (m *Manager) journalPath(top, name string) string {
	return filepath.Join(m.dir(top), name+".merge")
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("make %s: %w", filepath.Dir(path), err)
	}
	return atomicfile.Write(path, append(data, '\n'), 0o600)
}

func (m *Manager) save(mf *Manifest) error {
	if err := writeJSON(m.manifestPath(mf.Repo, mf.Name), mf); err != nil {
		return fmt.Errorf("write the manifest of worktree %s: %w", mf.Name, err)
	}
	return nil
}

func readManifest(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var mf Manifest
	if err := json.Unmarshal(data, &mf); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return &mf, nil
}

// CreateOptions are the choices of Create.
type CreateOptions struct {
	// ConversationID is recorded in the manifest (SetConversation can
	// record it later).
	ConversationID string
}

// Create makes worktree name for the repository workspace is in: a new
// branch freeact/NAME at the main checkout's HEAD, checked out below
// Root, with the files .worktreeinclude lists and the workspace's
// .freeact/ settings copied in.
func (m *Manager) Create(ctx context.Context, workspace, name string, opts CreateOptions) (*Manifest, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	r, err := m.openRepo(ctx, workspace)
	if err != nil {
		return nil, err
	}
	if _, err := m.Recover(ctx, workspace); err != nil {
		return nil, err
	}
	if mf, err := readManifest(m.manifestPath(r.top, name)); err == nil {
		return nil, &Error{Kind: Exists, Msg: fmt.Sprintf("a worktree named %s exists (branch %s, at %s)", name, mf.Branch, mf.Path),
			Offer: "continue in it (freeact run --worktree " + name + "), or pick another name", Suggest: m.free(ctx, r.top, name)}
	}
	base, err := m.git(ctx, r.top, "symbolic-ref", "-q", "--short", "HEAD")
	if err != nil || base == "" {
		return nil, &Error{Kind: Detached, Msg: fmt.Sprintf("the main checkout %s has a detached HEAD: there is no branch to start from and merge back into", r.top),
			Offer: "switch to a branch there (git switch main, or git switch -c NEW) and try again"}
	}
	commit, err := m.git(ctx, r.top, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return nil, &Error{Kind: NotRepo, Msg: fmt.Sprintf("branch %s of %s has no commit yet", base, r.top),
			Offer: "make a first commit there (git commit), then try again"}
	}
	branch := BranchPrefix + name
	if m.branchExists(ctx, r.top, branch) {
		return nil, &Error{Kind: BranchTaken, Msg: fmt.Sprintf("the branch %s exists already", branch),
			Offer: "pick another name, or delete the branch (git branch -D " + branch + ") if it holds nothing you need", Suggest: m.free(ctx, r.top, name)}
	}
	mf := &Manifest{Name: name, Repo: r.top, Sub: r.sub, Path: filepath.Join(m.dir(r.top), name),
		Branch: branch, BaseBranch: base, BaseCommit: commit, ConversationID: opts.ConversationID,
		Created: time.Now().UTC(), State: Creating, PID: os.Getpid()}
	if _, err := os.Lstat(mf.Path); err == nil {
		return nil, &Error{Kind: Exists, Msg: fmt.Sprintf("%s exists and is no worktree of freeact's", mf.Path),
			Offer: "move it away, or pick another name", Suggest: m.free(ctx, r.top, name)}
	}
	// The manifest comes first: a crash from here on leaves a "creating"
	// manifest that Recover undoes.
	if err := m.save(mf); err != nil {
		return nil, err
	}
	if _, err := m.git(ctx, r.top, "worktree", "add", "-b", branch, "--", mf.Path, commit); err != nil {
		_ = m.undoCreate(context.WithoutCancel(ctx), mf)
		return nil, fmt.Errorf("create worktree %s: %w", name, err)
	}
	gd, err := m.git(ctx, mf.Path, "rev-parse", "--absolute-git-dir")
	if err != nil {
		_ = m.undoCreate(context.WithoutCancel(ctx), mf)
		return nil, fmt.Errorf("create worktree %s: %w", name, err)
	}
	mf.GitDir = gd
	if err := m.copyIn(ctx, r, mf); err != nil {
		_ = m.undoCreate(context.WithoutCancel(ctx), mf)
		return nil, fmt.Errorf("create worktree %s: %w", name, err)
	}
	mf.State, mf.PID = Ready, 0
	if err := m.save(mf); err != nil {
		return nil, err
	}
	return mf, nil
}

func (m *Manager) branchExists(ctx context.Context, top, branch string) bool {
	_, err := m.git(ctx, top, "show-ref", "--verify", "--quiet", "refs/heads/"+branch)
	return err == nil
}

// free proposes a name like name whose branch and folder are free.
func (m *Manager) free(ctx context.Context, top, name string) string {
	for i := 2; i < 100; i++ {
		n := fmt.Sprintf("%s-%d", name, i)
		if CheckName(n) != nil {
			break
		}
		if _, err := os.Lstat(m.manifestPath(top, n)); err == nil {
			continue
		}
		if _, err := os.Lstat(filepath.Join(m.dir(top), n)); err == nil {
			continue
		}
		if !m.branchExists(ctx, top, BranchPrefix+n) {
			return n
		}
	}
	return ""
}

// Propose is a free name for a new worktree of workspace's repository.
func (m *Manager) Propose(ctx context.Context, workspace string) (string, error) {
	r, err := m.openRepo(ctx, workspace)
	if err != nil {
		return "", err
	}
	base := "task-" + time.Now().Format("0102")
	if !m.branchExists(ctx, r.top, BranchPrefix+base) {
		if _, err := os.Lstat(m.manifestPath(r.top, base)); err != nil {
			return base, nil
		}
	}
	return m.free(ctx, r.top, base), nil
}

// undoCreate takes back a creation that did not finish: the worktree, its
// branch while it still points where it started (nothing was committed on
// it), and the manifest.
func (m *Manager) undoCreate(ctx context.Context, mf *Manifest) error {
	_, _ = m.git(ctx, mf.Repo, "worktree", "remove", "--force", "--", mf.Path)
	_, _ = m.git(ctx, mf.Repo, "worktree", "prune")
	if _, err := os.Lstat(mf.Path); err == nil {
		// git did not know it (killed before registering it): nothing
		// of the user's can be in a folder no conversation ever ran in.
		if err := os.RemoveAll(mf.Path); err != nil {
			return fmt.Errorf("remove the unfinished worktree %s: %w", mf.Path, err)
		}
		_, _ = m.git(ctx, mf.Repo, "worktree", "prune")
	}
	if at, err := m.git(ctx, mf.Repo, "rev-parse", "--verify", "-q", "refs/heads/"+mf.Branch); err == nil && at == mf.BaseCommit {
		_, _ = m.git(ctx, mf.Repo, "branch", "-D", "--", mf.Branch)
	}
	if err := os.Remove(m.manifestPath(mf.Repo, mf.Name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Open returns worktree name of workspace's repository, ready to work in.
// A worktree whose folder was deleted outside the app is an Error of kind
// Missing: it is not made again.
func (m *Manager) Open(ctx context.Context, workspace, name string) (*Manifest, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	r, err := m.openRepo(ctx, workspace)
	if err != nil {
		return nil, err
	}
	if _, err := m.Recover(ctx, workspace); err != nil {
		return nil, err
	}
	mf, err := readManifest(m.manifestPath(r.top, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{Kind: NotFound, Msg: fmt.Sprintf("no worktree named %s for %s", name, r.top),
			Offer: "freeact worktree list shows the worktrees; freeact run --worktree NAME creates one"}
	}
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(mf.Path); err != nil || !st.IsDir() {
		return mf, missingErr(mf)
	}
	return mf, nil
}

func missingErr(mf *Manifest) error {
	return &Error{Kind: Missing,
		Msg:   fmt.Sprintf("the folder of worktree %s (%s) was deleted outside the app; its branch %s is kept", mf.Name, mf.Path, mf.Branch),
		Offer: "remove the worktree to forget it (runs git worktree prune; the branch stays), or check the branch out yourself"}
}

// SetConversation records the conversation that works in the worktree.
func (m *Manager) SetConversation(mf *Manifest, id string) error {
	mf.ConversationID = id
	return m.save(mf)
}

// Status is a worktree in a list.
type Status struct {
	Manifest
	// Missing: the folder was deleted outside the app.
	Missing bool `json:"missing,omitempty"`
}

// List returns the worktrees of workspace's repository, by name.
func (m *Manager) List(ctx context.Context, workspace string) ([]Status, error) {
	r, err := m.openRepo(ctx, workspace)
	if err != nil {
		return nil, err
	}
	if _, err := m.Recover(ctx, workspace); err != nil {
		return nil, err
	}
	paths, _ := filepath.Glob(filepath.Join(m.dir(r.top), "*.json"))
	var out []Status
	for _, p := range paths {
		mf, err := readManifest(p)
		if err != nil {
			return nil, err
		}
		st, err := os.Stat(mf.Path)
		out = append(out, Status{Manifest: *mf, Missing: err != nil || !st.IsDir()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// alive reports whether the process with pid runs: this one (whose own
// failures are undone where they happen), or another freeact still at
// work. A crashed process is not running; a pid of 0 is nobody.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return true
	}
	return processRuns(pid)
}

// ByWorkdir returns the worktree whose working folder (Workdir) is dir,
// whatever its repository; nil when dir is no worktree of the app's.
func (m *Manager) ByWorkdir(dir string) *Manifest {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	paths, _ := filepath.Glob(filepath.Join(m.Root, "*", "*.json"))
	for _, p := range paths {
		mf, err := readManifest(p)
		if err == nil && mf.State == Ready && filepath.Clean(mf.Workdir()) == filepath.Clean(abs) {
			return mf
		}
	}
	return nil
}

// OpenOrCreate opens worktree name of workspace's repository, or creates
// it when there is none; created says which.
func (m *Manager) OpenOrCreate(ctx context.Context, workspace, name string) (mf *Manifest, created bool, err error) {
	mf, err = m.Open(ctx, workspace, name)
	if IsKind(err, NotFound) {
		mf, err = m.Create(ctx, workspace, name, CreateOptions{})
		return mf, err == nil, err
	}
	return mf, false, err
}

// checkLink refuses a worktree whose .git file no longer points at its own
// folder in the repository: code that ran there could have pointed it at
// a repository of its making, whose configuration names programs (filters,
// diff drivers) the next git command in the worktree would run outside
// any sandbox.
func checkLink(mf *Manifest) error {
	if mf.GitDir == "" {
		return nil // made before the check existed
	}
	p := filepath.Join(mf.Path, ".git")
	st, err := os.Lstat(p)
	var data []byte
	if err == nil && st.Mode().IsRegular() && st.Size() < 4096 {
		data, err = os.ReadFile(p)
	}
	if err == nil && strings.TrimSpace(string(data)) == "gitdir: "+mf.GitDir {
		return nil
	}
	return &Error{Kind: Tampered,
		Msg:   fmt.Sprintf("the .git file of worktree %s no longer points at %s: freeact runs no git there", mf.Name, mf.GitDir),
		Offer: fmt.Sprintf("put it back (printf 'gitdir: %s\\n' > %s), or look at the worktree yourself", mf.GitDir, p)}
}

// Open returns worktree name of the git repository dir is in, creating it
// (branch freeact/NAME from the current branch) when there is none, with
// the worktrees below dataDir/worktrees (the app's data folder,
// appdirs.Dirs.Data). A conversation then works in its Workdir(): the SDK
// opens agent.OpenWorkspace there.
func Open(ctx context.Context, dataDir, dir, name string) (*Manifest, error) {
	mf, _, err := New(dataDir).OpenOrCreate(ctx, dir, name)
	return mf, err
}
