package worktree

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/freeact/desktop/internal/beneath"
)

// IgnoredMark ends each entry of an ignored file or folder in the list a
// removal shows: such files are never committed, so they are kept with
// the worktree or deleted after the second confirmation.
const IgnoredMark = "ignored)"

// summariseOver is the most files an ignored folder's entries list one
// by one; a folder with more is one line "folder/ (N files, ignored)".
const summariseOver = 20

// rebuildable are the names of folders tools rebuild: an ignored one is
// always one line, whatever it holds.
var rebuildable = map[string]bool{
	"node_modules": true, ".venv": true, "__pycache__": true,
	"build": true, "dist": true, ".cache": true,
}

func hashOf(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// IsIgnoredEntry reports whether an entry of a removal's list is an
// ignored file or folder (which "commit them" cannot save).
func IsIgnoredEntry(entry string) bool {
	return strings.HasSuffix(entry, " ("+IgnoredMark) || strings.HasSuffix(entry, ", "+IgnoredMark)
}

// Ignored are the entries of the files git ignores in the worktree that
// may hold work, sorted: each ignored file created there and each copy
// .worktreeinclude brought in that changed since (an unchanged copy is
// left out: the main checkout has it), as "path (ignored)"; an ignored
// folder of a rebuildable name or with more than summariseOver such
// files is one entry "folder/ (N files, ignored)". In the app's own
// folder (its settings, its sessions, which are kept) only the changed
// copies .worktreeinclude made are listed. Links are not followed.
func (m *Manager) Ignored(ctx context.Context, mf *Manifest) ([]string, error) {
	out, err := m.run(ctx, mf.Path, nil, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
	if err != nil {
		return nil, fmt.Errorf("list the ignored files of worktree %s: %w", mf.Name, err)
	}
	root, err := beneath.Open(mf.Path)
	if err != nil {
		return nil, fmt.Errorf("list the ignored files of worktree %s: %w", mf.Name, err)
	}
	defer root.Close()
	own := mf.ownDir() + "/"
	var entries []string
	for rel := range mf.CopiedHashes {
		if !strings.HasPrefix(rel, own) {
			continue
		}
		if _, _, err := root.Lstat(rel); err == nil && !copiedUnchanged(root, mf, rel) {
			entries = append(entries, rel+" (ignored)")
		}
	}
	for _, e := range splitZ(out) {
		if strings.HasPrefix(e, own) || e == own {
			continue
		}
		if !strings.HasSuffix(e, "/") {
			if !copiedUnchanged(root, mf, e) {
				entries = append(entries, e+" (ignored)")
			}
			continue
		}
		var files []string
		err := filepath.WalkDir(filepath.Join(mf.Path, filepath.FromSlash(e)), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			rel, _ := filepath.Rel(mf.Path, p)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if rel+"/" == own {
					return filepath.SkipDir
				}
				return nil
			}
			if !copiedUnchanged(root, mf, rel) {
				files = append(files, rel)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list the ignored folder %s of worktree %s: %w", e, mf.Name, err)
		}
		switch n := len(files); {
		case n == 0:
		case rebuildable[path.Base(e)] || n > summariseOver:
			word := "files"
			if n == 1 {
				word = "file"
			}
			entries = append(entries, fmt.Sprintf("%s (%d %s, %s", e, n, word, IgnoredMark))
		default:
			for _, f := range files {
				entries = append(entries, f+" (ignored)")
			}
		}
	}
	slices.Sort(entries)
	return entries, nil
}

// copiedUnchanged: rel is a regular file .worktreeinclude copied in and
// its content is still the copy's.
func copiedUnchanged(root *beneath.Root, mf *Manifest, rel string) bool {
	want, ok := mf.CopiedHashes[rel]
	if !ok {
		return false
	}
	mode, size, err := root.Lstat(rel)
	if err != nil || !mode.IsRegular() || size > maxCopy {
		return false
	}
	data, err := root.ReadFile(rel, maxCopy)
	return err == nil && hashOf(data) == want
}
