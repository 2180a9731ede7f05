package oauth

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/internal/atomicfile"
)

// NewStore returns where tokens are kept: the system keyring when it
// answers, else files of mode 0600 in dir (one a server and client).
func NewStore(keyring config.Keyring, dir string) config.Keyring {
	if keyring != nil {
		if _, err := keyring.Get("mcp-oauth probe"); err == nil || errors.Is(err, config.ErrSecretNotFound) {
			return keyring
		}
	}
	return FileStore(dir)
}

// FileStore keeps secrets in files of mode 0600 in dir (mode 0700).
func FileStore(dir string) config.Keyring { return fileStore(dir) }

type fileStore string

func (d fileStore) Name() string { return "files in " + string(d) }

func (d fileStore) path(name string) string {
	sum := sha256.Sum256([]byte(name))
	return filepath.Join(string(d), hex.EncodeToString(sum[:16])+".json")
}

func (d fileStore) Get(name string) (string, error) {
	b, err := os.ReadFile(d.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s: %w", name, config.ErrSecretNotFound)
	}
	return string(b), err
}

func (d fileStore) Set(name, secret string) error {
	if err := os.MkdirAll(string(d), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(d.path(name), []byte(secret), 0o600)
}

func (d fileStore) Delete(name string) error {
	err := os.Remove(d.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
