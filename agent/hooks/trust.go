package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/freeact/desktop/internal/atomicfile"
)

// Where hooks are kept.
const (
	// FileName is the hooks file in the app's settings folder (the
	// user's own) and in a workspace's .freeact/ folder.
	FileName = "hooks.json"
	// ScriptsDir is the folder beside a workspace's hooks.json whose files
	// its trust covers too.
	ScriptsDir = "hooks"
	// TrustFile is the file in the app's state folder that keeps which
	// workspace hooks the user trusted.
	TrustFile = "hooks-trust.json"
)

// WorkspaceFile is the hooks file of the workspace dir.
func WorkspaceFile(dir string) string { return filepath.Join(dir, ".freeact", FileName) }

// Digest is the fingerprint of a workspace's hooks that the user trusts:
// .freeact/hooks.json and every file below .freeact/hooks/ (links as
// links, never followed), so a changed script asks again like a changed
// hooks.json. It returns the hooks file's content; os.ErrNotExist when the
// workspace has none.
func Digest(dir string) (digest string, content []byte, err error) {
	file := WorkspaceFile(dir)
	fi, err := os.Lstat(file)
	if err != nil {
		return "", nil, err
	}
	if !fi.Mode().IsRegular() {
		return "", nil, fmt.Errorf("%s is not a regular file: a workspace's hooks file must not be a link", file)
	}
	content, err = os.ReadFile(file)
	if err != nil {
		return "", nil, fmt.Errorf("read workspace hooks: %w", err)
	}
	h := sha256.New()
	put := func(name string, data []byte) {
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(data))
		h.Write(data)
	}
	put(FileName, content)
	scripts := filepath.Join(dir, ".freeact", ScriptsDir)
	var names []string
	werr := filepath.WalkDir(scripts, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == scripts {
				return filepath.SkipDir
			}
			return err
		}
		if p != scripts {
			names = append(names, p)
		}
		return nil
	})
	if werr != nil {
		return "", nil, fmt.Errorf("read workspace hook scripts: %w", werr)
	}
	sort.Strings(names)
	for _, p := range names {
		rel, _ := filepath.Rel(dir, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return "", nil, fmt.Errorf("read workspace hook scripts: %w", err)
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return "", nil, fmt.Errorf("read workspace hook scripts: %w", err)
			}
			put("link:"+rel, []byte(target))
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return "", nil, fmt.Errorf("read workspace hook scripts: %w", err)
			}
			put(fmt.Sprintf("file:%s:%o", rel, fi.Mode().Perm()), data)
		case fi.IsDir():
			put("dir:"+rel, nil)
		default:
			put("other:"+rel, nil)
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), content, nil
}

// Trust keeps which workspace hooks the user trusted: for each workspace
// folder, the Digest of what was trusted.
type Trust struct {
	File string
	mu   sync.Mutex
}

func (t *Trust) read() (map[string]string, error) {
	m := map[string]string{}
	data, err := os.ReadFile(t.File)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read hook trust: %w", err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("read hook trust %s: %w (delete the file to trust workspaces anew)", t.File, err)
	}
	return m, nil
}

// Trusted returns the digest the user trusted for dir, "" for none.
func (t *Trust) Trusted(dir string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m, err := t.read()
	if err != nil {
		return "", err
	}
	return m[key(dir)], nil
}

// Grant records that the user trusts dir's hooks as digest.
func (t *Trust) Grant(dir, digest string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	m, err := t.read()
	if err != nil {
		return err
	}
	m[key(dir)] = digest
	data, _ := json.MarshalIndent(m, "", "  ") // a map of strings always marshals
	if err := os.MkdirAll(filepath.Dir(t.File), 0o700); err != nil {
		return fmt.Errorf("save hook trust: %w", err)
	}
	if err := atomicfile.Write(t.File, data, 0o600); err != nil {
		return fmt.Errorf("save hook trust: %w", err)
	}
	return nil
}

func key(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return filepath.Clean(dir)
}

// WorkspaceState is where a workspace's hooks stand.
type WorkspaceState struct {
	Path    string
	Exists  bool
	Digest  string
	Content []byte
	// Trusted: the user trusted exactly this content. Changed: the user
	// trusted other content before.
	Trusted, Changed bool
}

// Workspace reports the state of dir's hooks under t.
func (t *Trust) Workspace(dir string) (WorkspaceState, error) {
	st := WorkspaceState{Path: WorkspaceFile(dir)}
	digest, content, err := Digest(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	st.Exists, st.Digest, st.Content = true, digest, content
	was, err := t.Trusted(dir)
	if err != nil {
		return st, err
	}
	st.Trusted = was == digest
	st.Changed = was != "" && !st.Trusted
	return st, nil
}

// Load reads the hooks that run for a workspace: the user's own
// (configDir/hooks.json) always; the workspace's .freeact/hooks.json only
// when t says the user trusted exactly its content. The state of the
// workspace's hooks is returned so a front end can ask.
func Load(configDir, dir string, t *Trust) ([]Set, WorkspaceState, error) {
	var sets []Set
	if configDir != "" {
		user := filepath.Join(configDir, FileName)
		data, err := os.ReadFile(user)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, WorkspaceState{}, fmt.Errorf("read your hooks: %w", err)
		default:
			s, err := Parse(data)
			if err != nil {
				return nil, WorkspaceState{}, fmt.Errorf("%s: %w", user, err)
			}
			sets = append(sets, Set{Source: SourceUser, Path: user, Settings: s})
		}
	}
	if t == nil || dir == "" {
		return sets, WorkspaceState{}, nil
	}
	st, err := t.Workspace(dir)
	if err != nil {
		return sets, st, err
	}
	if st.Trusted {
		s, err := Parse(st.Content)
		if err != nil {
			return sets, st, fmt.Errorf("%s: %w", st.Path, err)
		}
		trusted := st.Digest
		sets = append(sets, Set{Source: SourceWorkspace, Path: st.Path, Settings: s, Verify: func() error {
			// What was trusted is what runs: a file or script changed
			// since (by the model too) runs nothing.
			if d, _, err := Digest(dir); err != nil || d != trusted {
				return fmt.Errorf("%s or its scripts changed since you trusted them, so it did not run: review it, then run freeact hooks trust", st.Path)
			}
			return nil
		}})
	}
	return sets, st, nil
}
