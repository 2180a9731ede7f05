package appdirs

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const childEnv = "FREEACT_APPDIRS_CHILD"

// FromXDG reads the environment the program started with, through
// adrg/xdg: a child process with a known environment prints what it got.
// The test process's own environment is never changed.
func TestFromXDG(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		d := FromXDG()
		os.Stdout.WriteString(strings.Join([]string{d.Config, d.Data, d.State, strings.Join(d.DataDirs, ":"), d.Documents, d.Runtime}, "\n"))
		os.Exit(0)
	}
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "conf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "conf", "user-dirs.dirs"), []byte(`XDG_DOCUMENTS_DIR="$HOME/Papers"`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := t.TempDir()
	fallback := filepath.Join(os.TempDir(), "freeact-"+strconv.Itoa(os.Getuid()))
	for _, tc := range []struct {
		name string
		env  []string
		want []string
	}{
		{"defaults", nil, []string{
			home + "/.config/freeact", home + "/.local/share/freeact", home + "/.local/state/freeact",
			"/usr/local/share/freeact:/usr/share/freeact", home + "/Documents", fallback,
		}},
		{"set", []string{"XDG_CONFIG_HOME=" + home + "/conf", "XDG_DATA_HOME=/d", "XDG_STATE_HOME=/s",
			"XDG_DATA_DIRS=/opt/share:relative:/usr/share", "XDG_RUNTIME_DIR=" + run}, []string{
			home + "/conf/freeact", "/d/freeact", "/s/freeact", "/opt/share/freeact:/usr/share/freeact", home + "/Papers", run + "/freeact",
		}},
		{"runtime directory missing", []string{"XDG_RUNTIME_DIR=" + run + "/gone"}, []string{
			home + "/.config/freeact", home + "/.local/share/freeact", home + "/.local/state/freeact",
			"/usr/local/share/freeact:/usr/share/freeact", home + "/Documents", fallback,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestFromXDG$")
			cmd.Env = append([]string{childEnv + "=1", "HOME=" + home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + os.TempDir()}, tc.env...)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			if got := strings.Split(string(out), "\n"); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("FromXDG =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestIn(t *testing.T) {
	d := In("/t")
	if d.Checkpoints() != "/t/data/freeact/checkpoints" || d.Jupyter() != "/t/state/freeact/jupyter" || d.Config != "/t/config/freeact" ||
		len(d.DataDirs) != 0 {
		t.Errorf("In(/t) = %+v", d)
	}
	if (Dirs{}).Checkpoints() != "" || (Dirs{}).Jupyter() != "" {
		t.Error("no folders name relative ones")
	}
}

// Every folder the app keeps a secret, key or lock in is on the list the
// sandboxes hide, and the list names no folder twice.
func TestSecretsListEveryStore(t *testing.T) {
	d := In("/t")
	got := d.SecretPaths()
	for _, want := range []string{d.Config, d.Checkpoints(), d.MCPSignIn(), d.Locks(), d.Jupyter(), d.Runtime, d.Kernels()} {
		if !slices.ContainsFunc(got, func(p string) bool { return within(want, p) }) {
			t.Errorf("%s is not hidden by %q", want, got)
		}
	}
	seen := map[string]bool{}
	for _, p := range got {
		if seen[p] || !filepath.IsAbs(p) {
			t.Errorf("secret path %q twice or relative", p)
		}
		seen[p] = true
	}
	if len((Dirs{}).Secrets()) != 0 {
		t.Errorf("no folders, no secrets: %+v", (Dirs{}).Secrets())
	}
}

// A sandbox hides the kernels of the user's other processes too: a test's
// (In) kernels from another test's sandbox, and those of a process that
// found no runtime directory, with this TMPDIR or the usual /tmp.
func TestSecretsHideOtherProcessesKernels(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	uid := strconv.Itoa(os.Getuid())
	for _, d := range []Dirs{In("/a"), {Runtime: "/run/user/" + uid + "/freeact"}} {
		got := d.SecretPaths()
		for _, other := range []string{In("/b").Kernels(), fallbackRuntime(), "/tmp/freeact-" + uid + "/kernels"} {
			if !slices.ContainsFunc(got, func(p string) bool { return within(other, p) }) {
				t.Errorf("%s is not hidden by %q", other, got)
			}
		}
	}
}

func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsLocal(rel) || rel == "."
}

// A test's runtime folder is short enough for a socket below it, and
// differs between roots.
func TestInRuntimeIsShort(t *testing.T) {
	long := "/" + strings.Repeat("x", 200)
	a, b := In(long).Kernels(), In(long+"y").Kernels()
	if len(a)+len("/k-1234567890/k-1") > 100 || a == b {
		t.Errorf("Kernels() = %q, %q", a, b)
	}
}

// MakePrivate closes a folder others could enter and refuses a link.
func TestMakePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := MakePrivate(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := MakePrivate(dir); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if err := MakePrivate(link); err == nil {
		t.Error("a link was taken as the private folder")
	}
}
