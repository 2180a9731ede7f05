// Package checkpoint keeps the history of a workspace's files outside the
// workspace, so that every change an agent made — with the file tools, from
// Python or by shell commands — can be reviewed as a diff and taken back.
//
// A snapshot records every file of the workspace that .gitignore (and
// DefaultIgnore) does not exclude, in a content-addressed store: each
// file's content is a blob named by its SHA-256, each folder a tree object
// listing its entries, so an unchanged file or folder costs nothing in a
// new snapshot. Only files whose size, times or inode changed since the
// previous snapshot are read again (the index is git's stat cache, kept in
// memory and saved at Flush). A Record ties two snapshots, before and after
// an action, to what the action was; reverting records restores each file
// they changed to its state before them, unless it changed since (a
// conflict), and is itself recorded, so it can be taken back too.
//
// The store of a workspace lives in its own folder (Dir); several
// processes may use it at once (an flock serialises writers). Records
// older than Options.MaxAge, and the oldest ones beyond Options.MaxBytes,
// are pruned, with the objects only they used.
package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freeact/desktop/internal/atomicfile"
)

// Options adjust a store.
type Options struct {
	// MaxFileBytes: larger files are listed but their content is not kept
	// (default 10 MiB).
	MaxFileBytes int64
	// MaxFiles: a workspace with more files fails ErrTooManyFiles (default
	// 200,000).
	MaxFiles int
	// Ignore are gitignore patterns left out besides DefaultIgnore and the
	// workspace's own .gitignore files.
	Ignore []string
	// Secret are doublestar patterns (relative to the workspace, with
	// forward slashes) of files whose content is not kept, besides
	// DefaultSecret: the files the read-protection rules name.
	Secret []string
	// Protected are files (relative, forward slashes) that change what the
	// agent may do without asking, besides DefaultProtected: a revert
	// that would change one reports it in Plan.Protected and needs force.
	Protected []string
	// MaxAge: older records are pruned (default 30 days).
	MaxAge time.Duration
	// MaxBytes: beyond this much stored content the oldest records are
	// pruned (default 2 GiB); the newest record is always kept.
	MaxBytes int64
}

func (o Options) withDefaults() Options {
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = 10 << 20
	}
	if o.MaxFiles <= 0 {
		o.MaxFiles = 200_000
	}
	if o.MaxAge <= 0 {
		o.MaxAge = 30 * 24 * time.Hour
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 2 << 30
	}
	return o
}

// Dir returns the store folder of the workspace (an absolute path) under
// root: a folder named by a hash of the path.
func Dir(root, workspace string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(workspace)))
	return filepath.Join(root, hex.EncodeToString(sum[:8]))
}

// Store is the checkpoint store of one workspace. It is safe for
// concurrent use.
type Store struct {
	dir  string
	ws   string
	opts Options
	obj  *objects
	racy int64
	lock *fileLock
	// owner names this open store in pending records and revert journals;
	// ownerFile, locked while the store is open, tells other processes
	// that it is alive.
	owner     string
	ownerFile *os.File

	mu    sync.Mutex // serialises snapshots and reverts in this process
	index map[string]cached
	head  Hash // the last snapshot
	// keep is the first snapshot of the running turn: files it recorded
	// stay recorded where a .gitignore written since excludes them.
	// keepNext: the next snapshot becomes keep (a turn began).
	keep     Hash
	keepNext bool
	began    atomic.Bool // BeginTurn was called since the last snapshot
	dirty    bool        // index changed since it was saved
	records  recordLog
	pruning  sync.WaitGroup
	// own are the files freeact itself wrote since the last record
	// (Wrote), with the content it wrote.
	ownMu sync.Mutex
	own   map[string]Hash
	// The action lock (LockActions): held while any action of this
	// process runs.
	actMu   sync.Mutex
	actN    int
	actFile *os.File
}

// LockActions keeps other processes' actions on the workspace from
// running until the function it returns is called: an action's snapshots
// before and after must not take in another process's changes, or its
// record (and its revert) would hold them. Actions of this process share
// the lock. waiting is told the pid of the process it waits for, once.
func (s *Store) LockActions(ctx context.Context, waiting func(pid int)) (func(), error) {
	s.actMu.Lock()
	defer s.actMu.Unlock()
	if s.actN == 0 {
		f, err := lockWait(ctx, filepath.Join(s.dir, "actions.lock"), waiting)
		if err != nil {
			return nil, fmt.Errorf("wait for another freeact process's action on %s: %w", s.ws, err)
		}
		s.actFile = f
	}
	s.actN++
	return sync.OnceFunc(func() {
		s.actMu.Lock()
		defer s.actMu.Unlock()
		if s.actN--; s.actN == 0 {
			s.actFile.Close()
			s.actFile = nil
		}
	}), nil
}

// Snapshot is the state of the workspace at one moment.
type Snapshot struct {
	// Root names the snapshot: equal roots are equal workspaces.
	Root Hash
	// Files counts the files recorded; Hashed those read because they
	// changed (or were new) since the previous snapshot.
	Files, Hashed int
	// Large lists the files above MaxFileBytes, whose content is not kept.
	Large []string
}

// Open opens (creating it when missing) the store of the workspace ws in
// the folder dir (see Dir), and prunes it in the background when it was
// not pruned for a day.
func Open(dir, ws string, opts Options) (*Store, error) {
	ws, err := filepath.Abs(ws)
	if err != nil {
		return nil, fmt.Errorf("open checkpoints: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "objects"), 0o700); err != nil {
		return nil, fmt.Errorf("open checkpoints: %w", err)
	}
	_ = atomicfile.WriteCache(filepath.Join(dir, "workspace"), []byte(ws+"\n"), 0o600)
	s := &Store{
		dir: dir, ws: ws, opts: opts.withDefaults(),
		obj:      newObjects(filepath.Join(dir, "objects")),
		racy:     timestampResolution(ws),
		lock:     &fileLock{path: filepath.Join(dir, "lock")},
		records:  recordLog{path: filepath.Join(dir, "records.jsonl")},
		keepNext: true,
	}
	if err := os.MkdirAll(filepath.Join(dir, "owners"), 0o700); err != nil {
		return nil, fmt.Errorf("open checkpoints: %w", err)
	}
	s.owner = newID() + newID()
	if s.ownerFile, err = holdOwner(filepath.Join(dir, "owners", s.owner)); err != nil {
		return nil, fmt.Errorf("open checkpoints: %w", err)
	}
	s.head, s.index = s.loadIndex()
	if s.pruneDue() {
		s.pruning.Add(1)
		go func() {
			defer s.pruning.Done()
			_, _ = s.Prune(context.Background(), time.Now())
		}()
	}
	return s, nil
}

// Workspace returns the workspace folder.
func (s *Store) Workspace() string { return s.ws }

// Close saves the index and waits for a running prune.
func (s *Store) Close() error {
	s.pruning.Wait()
	err := s.Flush()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ownerFile != nil {
		_ = os.Remove(s.ownerFile.Name())
		s.ownerFile.Close()
		s.ownerFile = nil
	}
	return err
}

// Flush saves the index, so the next process need not read every file
// again.
func (s *Store) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.dirty {
		return nil
	}
	if err := atomicfile.WriteCache(filepath.Join(s.dir, "index"), encodeIndex(s.head, s.index), 0o600); err != nil {
		return fmt.Errorf("save checkpoint index: %w", err)
	}
	s.dirty = false
	return nil
}

// lockAll takes s.mu, then the file lock that other processes using the
// store respect; the function it returns releases both.
func (s *Store) lockAll(ctx context.Context) (unlock func(), err error) {
	s.mu.Lock()
	unlockFile, err := s.lock.lock(ctx)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	return func() { unlockFile(); s.mu.Unlock() }, nil
}

// Snapshot records the workspace as it is now.
func (s *Store) Snapshot(ctx context.Context) (Snapshot, error) {
	unlock, err := s.lockAll(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	defer unlock()
	return s.snapshot(ctx)
}

// BeginTurn starts a turn: its first snapshot is the turn's baseline and,
// until the next BeginTurn, files the baseline recorded stay recorded
// where a .gitignore (or .git/info/exclude) written since excludes them,
// so a turn's own .gitignore hides nothing it changes afterwards from its
// records. DefaultIgnore and Options.Ignore apply as always.
// It does not wait for a snapshot running meanwhile.
func (s *Store) BeginTurn() { s.began.Store(true) }

// snapshot walks the workspace; s.mu and the file lock are held.
func (s *Store) snapshot(ctx context.Context) (Snapshot, error) {
	if s.began.Swap(false) {
		s.keep, s.keepNext = Hash{}, true
	}
	w := newWalker(ctx, s.obj, s.index, s.opts, s.racy)
	w.keep = s.keep
	root, err := w.walk(s.ws, rootIgnore(s.ws, s.opts.Ignore))
	if err != nil {
		return Snapshot{}, fmt.Errorf("checkpoint %s: %w", s.ws, err)
	}
	if s.keepNext {
		s.keep, s.keepNext = root, false
	}
	s.index, s.head, s.dirty = w.next, root, true
	return Snapshot{Root: root, Files: int(w.files.Load()), Hashed: int(w.hashed.Load()), Large: w.large}, nil
}

// The index file: the last snapshot's root and, for each file, the stat it
// was hashed under.
const indexMagic = "freeact-index-1\n"

func encodeIndex(head Hash, idx map[string]cached) []byte {
	var b bytes.Buffer
	var tmp [binary.MaxVarintLen64]byte
	uv := func(v uint64) { b.Write(tmp[:binary.PutUvarint(tmp[:], v)]) }
	sv := func(v int64) { b.Write(tmp[:binary.PutVarint(tmp[:], v)]) }
	b.WriteString(indexMagic)
	b.Write(head[:])
	paths := make([]string, 0, len(idx))
	for p := range idx {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		c := idx[p]
		uv(uint64(len(p)))
		b.WriteString(p)
		b.WriteByte(c.kind)
		b.Write(c.hash[:])
		sv(c.key.size)
		sv(c.key.mtime)
		sv(c.key.ctime)
		uv(c.key.ino)
		uv(uint64(c.key.mode))
		sv(c.at)
	}
	return b.Bytes()
}

// loadIndex reads the index; a missing or damaged one is empty (every file
// is read again at the next snapshot).
func (s *Store) loadIndex() (Hash, map[string]cached) {
	idx := map[string]cached{}
	data, err := os.ReadFile(filepath.Join(s.dir, "index"))
	if err != nil || !bytes.HasPrefix(data, []byte(indexMagic)) || len(data) < len(indexMagic)+len(Hash{}) {
		return Hash{}, idx
	}
	var head Hash
	data = data[len(indexMagic):]
	copy(head[:], data)
	r := bytes.NewReader(data[len(head):])
	for r.Len() > 0 {
		var c cached
		n, err := binary.ReadUvarint(r)
		if err != nil || n > uint64(r.Len()) {
			return Hash{}, map[string]cached{}
		}
		p := make([]byte, n)
		_, _ = r.Read(p)
		if c.kind, err = r.ReadByte(); err != nil {
			return Hash{}, map[string]cached{}
		}
		if k, _ := r.Read(c.hash[:]); k != len(c.hash) {
			return Hash{}, map[string]cached{}
		}
		var errs [7]error
		c.key.size, errs[0] = binary.ReadVarint(r)
		c.key.mtime, errs[1] = binary.ReadVarint(r)
		c.key.ctime, errs[2] = binary.ReadVarint(r)
		c.key.ino, errs[3] = binary.ReadUvarint(r)
		var mode uint64
		mode, errs[4] = binary.ReadUvarint(r)
		c.key.mode = fs.FileMode(mode)
		c.at, errs[5] = binary.ReadVarint(r)
		if errors.Join(errs[:]...) != nil {
			return Hash{}, map[string]cached{}
		}
		idx[string(p)] = c
	}
	return head, idx
}
