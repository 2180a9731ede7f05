package config

import (
	"errors"
	"fmt"
	"time"

	keyring "github.com/zalando/go-keyring"
)

// Keyring keeps API keys in the operating system's keyring. AppStore uses
// it, when one answers, instead of its credentials file.
type Keyring interface {
	// Get returns the secret stored under name, or an error wrapping
	// ErrSecretNotFound when there is none.
	Get(name string) (string, error)
	Set(name, secret string) error
	// Delete removes the secret; a missing one is no error.
	Delete(name string) error
	// Name says what the keyring is, for the settings panel.
	Name() string
}

// ErrSecretNotFound is wrapped by Keyring.Get for a name it holds nothing
// under.
var ErrSecretNotFound = errors.New("no such secret in the keyring")

// keyringService is the service attribute of the app's items in the
// keyring (the user attribute is the key's variable name).
const keyringService = AppName

// keyringTimeout bounds one call to the keyring: a keyring that waits for
// an unlock prompt nobody answers counts as not available.
const keyringTimeout = 5 * time.Second

// SecretService returns the keyring of the desktop session: the Secret
// Service API on D-Bus (GNOME Keyring, KWallet 5.97+, KeePassXC), through
// zalando/go-keyring, which speaks D-Bus in Go without libsecret. Secrets go
// into the default collection (the login keyring), as other applications'
// do.
func SecretService() Keyring { return secretService{} }

type secretService struct{}

func (secretService) Name() string { return "the system keyring (Secret Service)" }

func (secretService) Get(name string) (string, error) {
	var v string
	err := bounded(func() (err error) {
		v, err = keyring.Get(keyringService, name)
		return err
	})
	if errors.Is(err, keyring.ErrNotFound) {
		return "", fmt.Errorf("%s: %w", name, ErrSecretNotFound)
	}
	return v, err
}

func (secretService) Set(name, secret string) error {
	return bounded(func() error { return keyring.Set(keyringService, name, secret) })
}

func (secretService) Delete(name string) error {
	err := bounded(func() error { return keyring.Delete(keyringService, name) })
	if errors.Is(err, keyring.ErrNotFound) {
		return nil
	}
	return err
}

// bounded runs f with keyringTimeout. A call that does not return in time
// is left to finish on its own.
func bounded(f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(keyringTimeout):
		return fmt.Errorf("the keyring did not answer within %v (is it locked?)", keyringTimeout)
	}
}
