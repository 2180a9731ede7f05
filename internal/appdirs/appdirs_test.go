package appdirs

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
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
		os.Stdout.WriteString(strings.Join([]string{d.Config, d.Data, d.State, strings.Join(d.DataDirs, ":"), d.Documents}, "\n"))
		os.Exit(0)
	}
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "conf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "conf", "user-dirs.dirs"), []byte(`XDG_DOCUMENTS_DIR="$HOME/Papers"`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		env  []string
		want []string
	}{
		{"defaults", nil, []string{
			home + "/.config/freeact", home + "/.local/share/freeact", home + "/.local/state/freeact",
			"/usr/local/share/freeact:/usr/share/freeact", home + "/Documents",
		}},
		{"set", []string{"XDG_CONFIG_HOME=" + home + "/conf", "XDG_DATA_HOME=/d", "XDG_STATE_HOME=/s",
			"XDG_DATA_DIRS=/opt/share:relative:/usr/share"}, []string{
			home + "/conf/freeact", "/d/freeact", "/s/freeact", "/opt/share/freeact:/usr/share/freeact", home + "/Papers",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestFromXDG$")
			cmd.Env = append([]string{childEnv + "=1", "HOME=" + home, "PATH=" + os.Getenv("PATH")}, tc.env...)
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
