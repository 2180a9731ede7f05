package config

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/freeact/desktop/internal/testenv"
)

// The keyring tests run the test binary again inside a D-Bus session of its
// own (dbus-run-session), with a real Secret Service: GNOME Keyring,
// unlocked with a password so that it has a login collection, as a desktop
// session does. keyringChild names the test the child runs.
const keyringChild = "FREEACT_KEYRING_CHILD"

// inSession runs the test named test in a fresh D-Bus session; with
// unlock, gnome-keyring-daemon is started and unlocked first. HOME is a
// temporary folder, so the keyring files are the test's own.
func inSession(t *testing.T, test string, unlock bool) {
	t.Helper()
	testenv.Integration(t, "dbus-run-session and gnome-keyring-daemon")
	for _, p := range []string{"dbus-run-session", "gnome-keyring-daemon", "secret-tool"} {
		if _, err := exec.LookPath(p); err != nil {
			testenv.Missing(t, p+" is not installed: run scripts/system-deps.sh test")
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := `exec "$0" -test.run '^` + test + `$' -test.v`
	if unlock {
		script = `printf test-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null && ` + script
	}
	cmd := exec.Command("dbus-run-session", "--", "sh", "-c", script, exe)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), keyringChild+"="+test, "HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_RUNTIME_DIR="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+test) {
		t.Fatalf("%s in a D-Bus session: %v\n%s", test, err, out)
	}
}

func child(t *testing.T) {
	if os.Getenv(keyringChild) != t.Name() {
		t.Skip("runs inside the D-Bus session of its parent test")
	}
}

// API keys go to the Secret Service when one runs: not into the file, and
// readable by another client of the keyring (secret-tool).
func TestKeyringStoresKeys(t *testing.T) { inSession(t, "TestKeyringChildStores", true) }

func TestKeyringChildStores(t *testing.T) {
	child(t)
	dir := t.TempDir()
	a := NewAppStore(dir).WithKeyring(SecretService())
	if got := a.KeyStorage(); got.Kind != InKeyring || got.Where != "the system keyring (Secret Service)" {
		t.Fatalf("storage = %+v, want the keyring", got)
	}
	where, err := a.SetAPIKey("GEMINI_API_KEY", "secret-in-keyring")
	if err != nil || where.Kind != InKeyring {
		t.Fatalf("SetAPIKey: %+v %v", where, err)
	}
	out, err := exec.Command("secret-tool", "lookup", "service", "freeact", "username", "GEMINI_API_KEY").Output()
	if err != nil || string(out) != "secret-in-keyring" {
		t.Fatalf("secret-tool lookup = %q, %v", out, err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "credentials.json")); err == nil && strings.Contains(string(data), "secret") {
		t.Fatalf("the key is in the file too: %s", data)
	}
	keys, err := a.APIKeys()
	if err != nil || keys["GEMINI_API_KEY"] != "secret-in-keyring" {
		t.Fatalf("APIKeys = %v, %v", keys, err)
	}
	// A second store over the same folder (the next start) finds it.
	if keys, _ := NewAppStore(dir).WithKeyring(SecretService()).APIKeys(); keys["GEMINI_API_KEY"] != "secret-in-keyring" {
		t.Fatalf("after a restart: %v", keys)
	}
	stored, err := a.StoredKeys()
	if err != nil || !slices.Equal(stored, []StoredKey{{Name: "GEMINI_API_KEY", Kind: InKeyring}}) {
		t.Fatalf("StoredKeys = %+v, %v", stored, err)
	}
	if _, err := a.SetAPIKey("GEMINI_API_KEY", ""); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("secret-tool", "lookup", "service", "freeact", "username", "GEMINI_API_KEY").Output(); err == nil {
		t.Fatalf("the removed key is still in the keyring: %q", out)
	}
	if keys, _ := a.APIKeys(); len(keys) != 0 {
		t.Fatalf("after removal: %v", keys)
	}
}

// A session whose Secret Service has no unlocked login keyring (it starts
// on demand, as on a machine where nobody logged in graphically) falls back
// to the 0600 file, and says why.
func TestKeyringFallsBackToTheFile(t *testing.T) { inSession(t, "TestKeyringChildFallsBack", false) }

func TestKeyringChildFallsBack(t *testing.T) {
	child(t)
	dir := t.TempDir()
	a := NewAppStore(dir).WithKeyring(SecretService())
	got := a.KeyStorage()
	if got.Kind != InFile || !strings.Contains(got.Reason, "Secret Service") {
		t.Fatalf("storage = %+v, want the file with the reason", got)
	}
	if where, err := a.SetAPIKey("OPENAI_API_KEY", "secret-in-file"); err != nil || where.Kind != InFile {
		t.Fatalf("SetAPIKey: %+v %v", where, err)
	}
	st, err := os.Stat(filepath.Join(dir, "credentials.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("credentials.json: %v %v", st, err)
	}
	if keys, _ := a.APIKeys(); keys["OPENAI_API_KEY"] != "secret-in-file" {
		t.Fatalf("APIKeys = %v", keys)
	}
}

// Without a session bus at all the file is used.
func TestKeyringWithoutBus(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(t.TempDir(), "no-bus"))
	a := NewAppStore(t.TempDir()).WithKeyring(SecretService())
	if got := a.KeyStorage(); got.Kind != InFile || got.Reason == "" {
		t.Fatalf("storage = %+v", got)
	}
}
