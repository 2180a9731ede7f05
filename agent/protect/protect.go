// Package protect keeps the files that decide what the agent may do
// without asking (.freeact/permissions.json, agent.json, the sandbox
// settings) as the app last wrote them or the user approved: before and
// after every code action, shell command and user cell the agent calls
// Restore, which compares each file with that record and puts back at once
// any change nothing approved, so no later step reads it. Accept records
// a file anew after a write the app made or the user approved.
package protect

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/freeact/desktop/internal/atomicfile"
	"github.com/freeact/desktop/internal/nofollow"
)

// state is a file's recorded content; absent when there was none.
type state struct {
	absent bool
	data   []byte
	mode   fs.FileMode
}

// Guard holds the record of a set of files. It is safe for concurrent use.
type Guard struct {
	mu   sync.Mutex
	base map[string]state
}

// New records files (absolute paths) as they are now.
func New(files ...string) *Guard {
	g := &Guard{base: map[string]state{}}
	for _, f := range files {
		f = filepath.Clean(f)
		// Its folder as it is now, links resolved: put walks it without
		// following any link swapped in later.
		if dir, err := filepath.EvalSymlinks(filepath.Dir(f)); err == nil {
			f = filepath.Join(dir, filepath.Base(f))
		}
		g.base[f] = read(f)
	}
	return g
}

// read returns a file's state, not following a symbolic link: a link or
// anything else but a regular file counts as changed content.
func read(path string) state {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return state{absent: true}
	}
	if err != nil || !info.Mode().IsRegular() {
		return state{data: []byte(fmt.Sprintf("\x00not a regular file: %v %v", info, err))}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return state{data: []byte("\x00unreadable: " + err.Error())}
	}
	return state{data: data, mode: info.Mode().Perm()}
}

func (s state) equal(o state) bool {
	return s.absent == o.absent && bytes.Equal(s.data, o.data)
}

// Accept records the files (all of them when none is named) as they are
// now: the app wrote them, or the user approved the write.
func (g *Guard) Accept(files ...string) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(files) == 0 {
		for f := range g.base {
			files = append(files, f)
		}
	}
	for _, f := range files {
		f = filepath.Clean(f)
		if dir, err := filepath.EvalSymlinks(filepath.Dir(f)); err == nil {
			if _, ok := g.base[filepath.Join(dir, filepath.Base(f))]; ok {
				f = filepath.Join(dir, filepath.Base(f))
			}
		}
		if _, ok := g.base[f]; ok {
			g.base[f] = read(f)
		}
	}
}

// Restore puts every file that differs from its record back as recorded
// (removing one that did not exist) and returns the files it put back.
// A file it could not put back is in the error, and stays in the record.
func (g *Guard) Restore() ([]string, error) {
	if g == nil {
		return nil, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var back []string
	var errs []error
	for f, want := range g.base {
		if read(f).equal(want) {
			continue
		}
		if err := put(f, want); err != nil {
			errs = append(errs, fmt.Errorf("put back %s: %w", f, err))
			continue
		}
		back = append(back, f)
	}
	return back, errors.Join(errs...)
}

// put writes s to path without following a link in its folder or at its
// name: the folder is opened one component at a time, and the file is
// replaced by rename (a link at its name is replaced, not followed).
func put(path string, s state) error {
	dir, err := nofollow.OpenDir(filepath.Dir(path), !s.absent)
	if err != nil {
		return err
	}
	defer dir.Close()
	name := filepath.Base(path)
	if s.absent {
		if err := nofollow.Remove(dir, name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			// A folder made in its place.
			return os.RemoveAll(path)
		}
		return nil
	}
	mode := s.mode
	if mode == 0 {
		mode = 0o644
	}
	if m, err := nofollow.Mode(dir, name); err == nil && m.IsDir() {
		if err := os.RemoveAll(path); err != nil {
			return err
		}
	}
	return atomicfile.WriteIn(dir, name, s.data, mode, true)
}
