package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/freeact/desktop/internal/atomicfile"
)

// Hash names an object: the SHA-256 of a file's content (a blob) or of a
// folder's encoded listing (a tree).
type Hash [sha256.Size]byte

// String returns the hash in hex.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// IsZero reports whether h is the zero hash (no object).
func (h Hash) IsZero() bool { return h == Hash{} }

// ParseHash reads a hex hash.
func ParseHash(s string) (Hash, error) {
	var h Hash
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(h) {
		return h, fmt.Errorf("%q is not a checkpoint hash", s)
	}
	copy(h[:], b)
	return h, nil
}

// Kinds of tree entries.
const (
	kindFile    byte = 'f'
	kindDir     byte = 'd'
	kindSymlink byte = 'l'
	// kindLarge is a file above the size limit: its content is not kept,
	// its hash stands for its size and modification time.
	kindLarge byte = 'L'
	// kindSecret is a file the secret patterns name (.env): listed as
	// present, its content never kept; its hash stands for its size and
	// modification time.
	kindSecret byte = 'S'
)

// entry is one child of a folder in a tree.
type entry struct {
	name string
	kind byte
	perm uint32 // permission bits (0o777)
	size int64  // bytes of a file; 0 for folders
	hash Hash   // blob (file, symlink target) or tree (folder)
}

// encodeTree returns the canonical encoding of a folder's entries, which
// must be sorted by name.
func encodeTree(entries []entry) []byte {
	var b bytes.Buffer
	var tmp [binary.MaxVarintLen64]byte
	b.WriteString("freeact-tree-1\n")
	for _, e := range entries {
		b.WriteByte(e.kind)
		b.Write(tmp[:binary.PutUvarint(tmp[:], uint64(e.perm))])
		b.Write(tmp[:binary.PutUvarint(tmp[:], uint64(e.size))])
		b.Write(tmp[:binary.PutUvarint(tmp[:], uint64(len(e.name)))])
		b.WriteString(e.name)
		b.Write(e.hash[:])
	}
	return b.Bytes()
}

var errCorrupt = errors.New("corrupt checkpoint tree")

func decodeTree(data []byte) ([]entry, error) {
	const magic = "freeact-tree-1\n"
	if !bytes.HasPrefix(data, []byte(magic)) {
		return nil, errCorrupt
	}
	data = data[len(magic):]
	var out []entry
	for len(data) > 0 {
		var e entry
		e.kind = data[0]
		data = data[1:]
		perm, n := binary.Uvarint(data)
		if n <= 0 {
			return nil, errCorrupt
		}
		data = data[n:]
		size, n := binary.Uvarint(data)
		if n <= 0 {
			return nil, errCorrupt
		}
		data = data[n:]
		l, n := binary.Uvarint(data)
		if n <= 0 || uint64(len(data)-n) < l+uint64(len(Hash{})) {
			return nil, errCorrupt
		}
		data = data[n:]
		e.name = string(data[:l])
		data = data[l:]
		copy(e.hash[:], data)
		data = data[len(Hash{}):]
		e.perm, e.size = uint32(perm), int64(size)
		out = append(out, e)
	}
	return out, nil
}

// objects is the content-addressed store: objects/ab/cdef... files. An
// object is written once (to a temporary file renamed into place) and never
// changed, so readers need no lock.
type objects struct {
	dir string

	mu    sync.Mutex
	known map[Hash]bool // objects known to exist
	trees map[Hash][]entry
}

func newObjects(dir string) *objects {
	return &objects{dir: dir, known: map[Hash]bool{}, trees: map[Hash][]entry{}}
}

func (o *objects) path(h Hash) string {
	s := h.String()
	return filepath.Join(o.dir, s[:2], s[2:])
}

func (o *objects) has(h Hash) bool {
	o.mu.Lock()
	ok := o.known[h]
	o.mu.Unlock()
	if ok {
		return true
	}
	if _, err := os.Stat(o.path(h)); err != nil {
		return false
	}
	o.mu.Lock()
	o.known[h] = true
	o.mu.Unlock()
	return true
}

// put stores data under its hash, which the caller computed.
func (o *objects) put(h Hash, data []byte) error {
	if o.has(h) {
		return nil
	}
	// WriteCache makes the fan-out folder when it is missing.
	if err := atomicfile.WriteCache(o.path(h), data, 0o600); err != nil {
		return fmt.Errorf("store checkpoint object: %w", err)
	}
	o.mu.Lock()
	o.known[h] = true
	o.mu.Unlock()
	return nil
}

// get reads an object, checking its hash.
func (o *objects) get(h Hash) ([]byte, error) {
	data, err := os.ReadFile(o.path(h))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("checkpoint object %s is missing (pruned?)", h.String()[:12])
		}
		return nil, fmt.Errorf("read checkpoint object: %w", err)
	}
	if sha256.Sum256(data) != h {
		return nil, fmt.Errorf("checkpoint object %s is damaged", h.String()[:12])
	}
	return data, nil
}

// putTree stores a folder's entries and returns the tree's hash.
func (o *objects) putTree(entries []entry) (Hash, error) {
	data := encodeTree(entries)
	h := sha256.Sum256(data)
	o.mu.Lock()
	_, cached := o.trees[h]
	o.mu.Unlock()
	if cached {
		return h, nil
	}
	if err := o.put(h, data); err != nil {
		return h, err
	}
	o.mu.Lock()
	o.trees[h] = entries
	o.mu.Unlock()
	return h, nil
}

// tree returns the entries of a stored tree.
func (o *objects) tree(h Hash) ([]entry, error) {
	o.mu.Lock()
	es, ok := o.trees[h]
	o.mu.Unlock()
	if ok {
		return es, nil
	}
	data, err := o.get(h)
	if err != nil {
		return nil, err
	}
	es, err = decodeTree(data)
	if err != nil {
		return nil, fmt.Errorf("checkpoint tree %s: %w", h.String()[:12], err)
	}
	o.mu.Lock()
	o.trees[h] = es
	o.mu.Unlock()
	return es, nil
}

// File is one file (or folder or symbolic link) of a snapshot.
type File struct {
	Path string // relative to the workspace, with forward slashes
	kind byte
	perm uint32
	Size int64
	hash Hash
}

// Dir reports whether the entry is a folder.
func (f File) Dir() bool { return f.kind == kindDir }

// Large reports whether the file was above the size limit and so is not
// kept.
func (f File) Large() bool { return f.kind == kindLarge }

// unkept reports whether the entry is a file whose content is not kept.
func (f *File) unkept() bool { return f != nil && (f.kind == kindLarge || f.kind == kindSecret) }

// forget drops what is remembered of a removed object.
func (o *objects) forget(h Hash) {
	o.mu.Lock()
	delete(o.known, h)
	delete(o.trees, h)
	o.mu.Unlock()
}
