package webview

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// NewCapability returns a new random capability: 32 bytes from r
// (crypto/rand when nil), hex-encoded.
func NewCapability(r io.Reader) (string, error) {
	if r == nil {
		r = rand.Reader
	}
	b := make([]byte, 32)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("make the window's capability: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// CapabilityMeta is the name of the <meta> tag of the app's index.html
// that holds the capability (InjectCapability); the frontend reads it
// once and sends it with every call.
const CapabilityMeta = "freeact-capability"

// InjectCapability puts the capability into the app's index.html as a
// <meta> tag at the start of its head.
func InjectCapability(html []byte, capability string) ([]byte, error) {
	s := string(html)
	i := strings.Index(s, "<head>")
	if i < 0 {
		return nil, errors.New("inject the window's capability: the app's index.html has no <head>")
	}
	i += len("<head>")
	tag := `<meta name="` + CapabilityMeta + `" content="` + capability + `">`
	return []byte(s[:i] + tag + s[i:]), nil
}

// ErrNoCapability is the error of a call to the app's Go methods that
// does not carry the window's capability.
var ErrNoCapability = errors.New("refused: this call does not carry the window's capability; " +
	"only the app's own page may call its Go methods, through frontend/src/lib/backend.ts")

// call is what Wails' runtime sends for a call of a bound method: 'C'
// (or 'c', by id) and this JSON; Capability is what backend.ts adds.
type call struct {
	Name       string `json:"name"`
	CallbackID string `json:"callbackID"`
	Capability string `json:"capability"`
}

// CheckCall checks one script message of the window's page against the
// capability: a call of a bound method (Wails' 'C' and 'c' messages) must
// carry it; the runtime's other messages (events, window, log) need not.
// A refused call returns its callback id (for the error answer) and
// ErrNoCapability.
func CheckCall(message, capability string) (callbackID string, err error) {
	if message == "" || (message[0] != 'C' && message[0] != 'c') {
		return "", nil
	}
	var c call
	if err := json.Unmarshal([]byte(message[1:]), &c); err != nil {
		return "", fmt.Errorf("refused: a call the app cannot read: %w", err)
	}
	if capability == "" || subtle.ConstantTimeCompare([]byte(c.Capability), []byte(capability)) != 1 {
		return c.CallbackID, fmt.Errorf("%s: %w", c.Name, ErrNoCapability)
	}
	return "", nil
}
