package worktree

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/freeact/desktop/internal/beneath"
)

// IncludeFile lists, in gitignore's pattern format, the ignored files a new
// worktree gets copies of (Claude Code's name and format).
const IncludeFile = ".worktreeinclude"

// maxCopy is the largest file copied into a worktree.
const maxCopy = 64 << 20

// copyIn copies into the new worktree the ignored files .worktreeinclude
// lists, and the workspace's .freeact/ settings the checkout lacks. Links
// are never followed, neither read in the main checkout nor written in
// the worktree.
func (m *Manager) copyIn(ctx context.Context, r repo, mf *Manifest) error {
	src, err := beneath.Open(r.top)
	if err != nil {
		return fmt.Errorf("open %s: %w", r.top, err)
	}
	defer src.Close()
	dst, err := beneath.Open(mf.Path)
	if err != nil {
		return fmt.Errorf("open %s: %w", mf.Path, err)
	}
	defer dst.Close()
	files, err := m.included(ctx, r.top, src)
	if err != nil {
		return err
	}
	settings, err := m.settings(r, dst)
	if err != nil {
		return err
	}
	for i, rel := range append(files, settings...) {
		if err := ctx.Err(); err != nil {
			return err
		}
		mode, size, err := src.Lstat(rel)
		switch {
		case err != nil:
			mf.Skipped = append(mf.Skipped, rel+" (cannot be read: "+err.Error()+")")
			continue
		case !mode.IsRegular():
			mf.Skipped = append(mf.Skipped, rel+" (not a regular file; links are not followed)")
			continue
		case size > maxCopy:
			mf.Skipped = append(mf.Skipped, rel+" (larger than 64 MiB)")
			continue
		}
		data, err := src.ReadFile(rel, maxCopy)
		if err != nil {
			mf.Skipped = append(mf.Skipped, rel+" (cannot be read: "+err.Error()+")")
			continue
		}
		if err := dst.WriteFile(rel, data, mode.Perm()); err != nil {
			if errors.Is(err, beneath.ErrLinkSwapped) {
				mf.Skipped = append(mf.Skipped, rel+" (a link in the worktree stands on its path)")
				continue
			}
			return fmt.Errorf("copy %s into the worktree: %w", rel, err)
		}
		mf.Copied = append(mf.Copied, rel)
		if i < len(files) { // .worktreeinclude's, not the settings
			if mf.CopiedHashes == nil {
				mf.CopiedHashes = map[string]string{}
			}
			mf.CopiedHashes[rel] = hashOf(data)
		}
	}
	return nil
}

// included are the files of the main checkout that are ignored by git and
// match a pattern of .worktreeinclude (relative, slash-separated).
func (m *Manager) included(ctx context.Context, top string, src *beneath.Root) ([]string, error) {
	data, err := src.ReadFile(IncludeFile, 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w (it must be a regular file, not a link)", filepath.Join(top, IncludeFile), err)
	}
	args := []string{"ls-files", "-z", "--others", "--ignored"}
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		args = append(args, "--exclude="+line)
		n++
	}
	if n == 0 {
		return nil, nil
	}
	out, err := m.run(ctx, top, nil, args...)
	if err != nil {
		return nil, fmt.Errorf("list the files %s names: %w", IncludeFile, err)
	}
	cands := splitZ(out)
	if len(cands) == 0 {
		return nil, nil
	}
	// Only files git ignores: .worktreeinclude never copies a file that
	// is merely untracked.
	ign, err := m.checkIgnored(ctx, top, cands)
	if err != nil {
		return nil, err
	}
	return ign, nil
}

func (m *Manager) checkIgnored(ctx context.Context, top string, paths []string) ([]string, error) {
	in := strings.Join(paths, "\x00") + "\x00"
	out, err := m.runIn(ctx, top, in, nil, "check-ignore", "-z", "--stdin")
	if err != nil && exitCode(err) != 1 {
		return nil, fmt.Errorf("check which files git ignores: %w", err)
	}
	return splitZ(out), nil
}

// settings are the files of the workspace's .freeact/ that the worktree's
// checkout lacks: the settings, permissions, skills and prompts, so that
// the conversation there works under the same rules. Sessions, generated
// modules and .env files are not copied (.env only through
// .worktreeinclude).
func (m *Manager) settings(r repo, dst *beneath.Root) ([]string, error) {
	base := filepath.Join(r.sub, ".freeact")
	root := filepath.Join(r.top, base)
	st, err := os.Lstat(root)
	if err != nil || !st.IsDir() {
		return nil, nil
	}
	var out []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r.top, p)
		inside, _ := filepath.Rel(root, p)
		if d.IsDir() {
			switch inside {
			case "sessions", "generated":
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == ".env" || !d.Type().IsRegular() {
			return nil
		}
		if _, _, err := dst.Lstat(rel); err == nil {
			return nil // the checkout has it (tracked)
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", root, err)
	}
	return out, nil
}
