// Package seal owns the key that signs the records of code that ran in a
// workspace's kernel (model.Ran), so that a session file whose record of a
// cell was changed outside the app is recognised before its code runs
// again. The key is random, one per workspace, kept in the app's folder
// (outside the workspace, hidden from sandboxed kernels), and written once.
package seal

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/internal/atomicfile"
)

// Folder is the folder below the app's folder that holds the keys.
const Folder = "session-keys"

// Key signs and checks records of one workspace.
type Key struct{ k []byte }

// Load returns the key of workspace ws kept in folder dir (the app's
// folder), making it on first use.
func Load(dir, ws string) (*Key, error) {
	sum := sha256.Sum256([]byte(filepath.Clean(ws)))
	file := filepath.Join(dir, Folder, hex.EncodeToString(sum[:16]))
	data, err := os.ReadFile(file)
	switch {
	case err == nil && len(data) == 64:
		k, err := hex.DecodeString(string(data))
		if err == nil {
			return &Key{k: k}, nil
		}
		return nil, fmt.Errorf("session key %s is damaged: delete it (records signed with it will show as changed): %w", file, err)
	case err == nil:
		return nil, fmt.Errorf("session key %s is damaged: delete it (records signed with it will show as changed)", file)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("read session key: %w", err)
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("make session key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return nil, fmt.Errorf("make session key folder: %w", err)
	}
	// Written whole under another name, then linked into place: of two
	// processes making it at once, the second reads the first's.
	tmp := fmt.Sprintf("%s.%x.tmp", file, k[:4])
	if err := atomicfile.Write(tmp, []byte(hex.EncodeToString(k)), 0o600); err != nil {
		return nil, fmt.Errorf("write session key: %w", err)
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, file); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return Load(dir, ws)
		}
		return nil, fmt.Errorf("write session key: %w", err)
	}
	return &Key{k: k}, nil
}

// New returns a key of the given bytes (tests).
func New(k []byte) *Key { return &Key{k: k} }

// v2 marks a seal over the whole record (mac2). A seal without it (of
// a session written before) covers only By, Of, Code and Error (mac1).
const v2 = "v2:"

// mac1 is the first seal: who ran the code, of what, the code and
// whether it failed.
func (k *Key) mac1(r model.Ran, callID string) string {
	return k.sum("freeact-ran-1", callID, r.By, r.Of, r.Code, fmt.Sprint(r.Error))
}

// mac2 covers every field of the record but its seal, each in order and
// length-prefixed (the images with their count), so that no two records
// encode alike.
func (k *Key) mac2(r model.Ran, callID string) string {
	f := []string{"freeact-ran-2", callID, r.By, r.Of, r.Code, fmt.Sprint(r.Error), r.Run, r.Original,
		strconv.FormatInt(r.ElapsedMS, 10), strconv.Itoa(len(r.Images))}
	f = append(f, r.Images...)
	if a := r.Approved; a != nil {
		// Only records that have it carry it: older seals stay valid.
		f = append(f, "approved", a.By, a.Reason, a.Rule)
	}
	return v2 + k.sum(f...)
}

func (k *Key) sum(fields ...string) string {
	h := hmac.New(sha256.New, k.k)
	for _, f := range fields {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		h.Write(n[:])
		h.Write([]byte(f))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Sign seals r whole (every field but Seal): set them all first. callID
// is the code action's call id ("" for a cell the user ran).
func (k *Key) Sign(r *model.Ran, callID string) {
	if k == nil {
		return
	}
	r.Seal = k.mac2(*r, callID)
}

// Valid reports whether r's code is as the app wrote it: its seal is
// this key's over the whole record, or, for a record of a session
// written before records were sealed whole, over By, Of, Code and Error.
// A nil key trusts nothing.
func (k *Key) Valid(r model.Ran, callID string) bool {
	if k == nil || r.Seal == "" {
		return false
	}
	want := k.mac1(r, callID)
	if strings.HasPrefix(r.Seal, v2) {
		want = k.mac2(r, callID)
	}
	return hmac.Equal([]byte(r.Seal), []byte(want))
}

// Whole reports whether every field of r is as the app wrote it: only
// then may what r shows beyond its code (Run, Original, Images,
// ElapsedMS) be shown. A record sealed before records were sealed whole
// is not. A nil key trusts nothing.
func (k *Key) Whole(r model.Ran, callID string) bool {
	return strings.HasPrefix(r.Seal, v2) && k.Valid(r, callID)
}
