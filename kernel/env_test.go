package kernel

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func bareVenv(t *testing.T) string {
	return testPath(t, "FREEACT_TEST_BARE_PYTHON", ".cache/python/bare/bin/python", "Python venv without ipykernel",
		func(p string) bool { _, err := os.Stat(p); return err == nil && !hasModules(p, "ipykernel") })
}

func TestResolveEnv(t *testing.T) {
	py := newPython(t)
	bare := bareVenv(t)
	venvDir := filepath.Dir(filepath.Dir(py))

	wsWithVenv := t.TempDir()
	if err := os.Symlink(venvDir, filepath.Join(wsWithVenv, ".venv")); err != nil {
		t.Fatal(err)
	}
	wsWithBareVenv := t.TempDir()
	if err := os.Symlink(filepath.Dir(filepath.Dir(bare)), filepath.Join(wsWithBareVenv, ".venv")); err != nil {
		t.Fatal(err)
	}
	dataWithEnv := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dataWithEnv, "python"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(venvDir, filepath.Join(dataWithEnv, "python", "venv")); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name       string
		opts       EnvOptions
		wantSource EnvSource
		wantErr    []string // all must appear in the error
	}{
		{name: "explicit", opts: EnvOptions{Python: py, Workspace: wsWithBareVenv}, wantSource: EnvExplicit},
		{name: "explicit wins over workspace venv", opts: EnvOptions{Python: py, Workspace: wsWithVenv}, wantSource: EnvExplicit},
		{name: "workspace venv", opts: EnvOptions{Workspace: wsWithVenv, DataDir: t.TempDir()}, wantSource: EnvWorkspace},
		{name: "app environment", opts: EnvOptions{Workspace: t.TempDir(), DataDir: dataWithEnv}, wantSource: EnvProvisioned},
		{name: "broken workspace venv falls through", opts: EnvOptions{Workspace: wsWithBareVenv, DataDir: dataWithEnv}, wantSource: EnvProvisioned},
		{name: "an administrator's environment in a shared data folder", opts: EnvOptions{Workspace: t.TempDir(), DataDir: t.TempDir(),
			SharedDirs: []string{filepath.Join(t.TempDir(), "missing"), dataWithEnv}}, wantSource: EnvProvisioned},
		{name: "no data folder to provision in", opts: EnvOptions{Workspace: t.TempDir(), Provision: true},
			wantErr: []string{"no data folder to provision in"}},
		{name: "explicit missing", opts: EnvOptions{Python: "/nonexistent/python3"},
			wantErr: []string{"/nonexistent/python3", "interpreter not found"}},
		{name: "explicit without ipykernel", opts: EnvOptions{Python: bare},
			wantErr: []string{"ipykernel and jupyter_server not installed", "fix: run: " + bare + " -m pip install ipykernel jupyter_server"}},
		{name: "nothing found", opts: EnvOptions{Workspace: wsWithBareVenv, DataDir: t.TempDir()},
			wantErr: []string{"no usable Python", "ipykernel and jupyter_server not installed", "fix: set \"python\" in .freeact/agent.json, or run: python3 -m venv .venv && .venv/bin/pip install ipykernel jupyter_server"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, err := ResolveEnv(context.Background(), c.opts)
			if c.wantErr != nil {
				if err == nil {
					t.Fatalf("want an error, got %+v", env)
				}
				for _, w := range c.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if env.Source != c.wantSource || env.IPyKernel == "" || env.JupyterServer == "" || !versionAtLeast(env.PythonVersion, "3.9") {
				t.Fatalf("env %+v, want source %s with versions", env, c.wantSource)
			}
		})
	}
}

func TestVersionAtLeast(t *testing.T) {
	cases := []struct {
		have, want string
		ok         bool
	}{
		{"6.17.0", "6.17", true}, {"6.16.2", "6.17", false}, {"7.0.0a1", "6.17", true},
		{"6.17", "6.17.1", false}, {"1.23.3", "1.23", true}, {"2.0.0rc1", "1.23", true},
		{"3.11.2", "3.9", true}, {"3.8.10", "3.9", false}, {"garbage", "1.0", false},
	}
	for _, c := range cases {
		if got := versionAtLeast(c.have, c.want); got != c.ok {
			t.Errorf("versionAtLeast(%q, %q) = %v", c.have, c.want, got)
		}
	}
}

// TestProvision creates the app environment with pip, offline from the
// wheels setup-python.sh downloaded, and checks progress reporting.
func TestProvision(t *testing.T) {
	wheels := testPath(t, "FREEACT_TEST_WHEELS", ".cache/python/wheels", "wheel directory",
		func(p string) bool { _, err := os.Stat(filepath.Join(p, ".complete")); return err == nil })
	base := oldPython(t) // any python3 with the venv module
	data := t.TempDir()
	var mu sync.Mutex
	var steps []Progress
	opts := EnvOptions{
		Workspace:  t.TempDir(),
		DataDir:    data,
		Provision:  true,
		BasePython: base,
		PipArgs:    []string{"--no-index", "--find-links", wheels},
		Progress: func(p Progress) {
			mu.Lock()
			steps = append(steps, p)
			mu.Unlock()
		},
	}
	// Started in a workspace that holds modules named like the ones
	// provisioning runs (python -m venv, python -m pip): they are not
	// imported.
	cwd := t.TempDir()
	marker := filepath.Join(t.TempDir(), "imported")
	for _, f := range []string{"venv.py", "pip/__init__.py"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(cwd, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cwd, f), []byte(fmt.Sprintf("open(%q, 'a').write(__name__)\n", marker)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(cwd)
	env, err := ResolveEnv(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("modules of the working directory were imported: %s", b)
	}
	if env.Source != EnvProvisioned || env.Python != ProvisionedPython(data) {
		t.Fatalf("env %+v", env)
	}
	if len(steps) < 4 || steps[len(steps)-1].Fraction != 1 {
		t.Fatalf("progress %+v", steps)
	}
	for i := 1; i < len(steps); i++ {
		if steps[i].Fraction < steps[i-1].Fraction {
			t.Fatalf("progress went backwards: %+v", steps)
		}
	}
	if !hasModules(env.Python, "ipykernel", "jupyter_server", "matplotlib", "numpy", "pandas", "pydantic") {
		t.Fatal("provisioned environment lacks packages")
	}
	entries, _ := os.ReadDir(filepath.Join(data, "python"))
	if len(entries) != 1 {
		t.Fatalf("leftovers next to the venv: %v", entries)
	}
	// Found again without installing.
	steps = nil
	env2, err := ResolveEnv(context.Background(), opts)
	if err != nil || env2.Python != env.Python || len(steps) != 0 {
		t.Fatalf("second resolve: %+v %v progress %v", env2, err, steps)
	}
	// And it runs a kernel.
	s, err := StartServer(context.Background(), ServerOptions{Python: env.Python, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	k := startKernel(t, s, KernelOptions{})
	if res := run(t, k, "import pandas; print(pandas.DataFrame({'a': [1]}).shape)"); !strings.Contains(res.Text, "(1, 1)") {
		t.Fatalf("%q", res.Text)
	}
}

func TestProvisionFailureIsClear(t *testing.T) {
	base := oldPython(t)
	_, err := ResolveEnv(context.Background(), EnvOptions{
		DataDir: t.TempDir(), Provision: true, BasePython: base,
		PipArgs: []string{"--no-index", "--find-links", t.TempDir()},
	})
	if err == nil || !strings.Contains(err.Error(), "provisioning") || !strings.Contains(err.Error(), "pip install") {
		t.Fatalf("error %v", err)
	}
}

// TestInspectPythonVersions checks what inspectPython makes of the versions
// an interpreter reports, with stand-ins that print the probe's answer.
func TestInspectPythonVersions(t *testing.T) {
	cases := []struct {
		name, probe string
		want        string // in the error; "" for none
	}{
		{"new enough", `{"python": "3.11.2", "ipykernel": "6.29.5", "jupyter_server": "2.14.0"}`, ""},
		{"old ipykernel", `{"python": "3.11.2", "ipykernel": "5.5.6", "jupyter_server": "2.14.0"}`,
			"ipykernel 5.5.6 is too old (need 6.17 or newer); fix: run: %s -m pip install -U ipykernel"},
		{"old jupyter_server", `{"python": "3.11.2", "ipykernel": "6.29.5", "jupyter_server": "1.13.1"}`,
			"jupyter_server 1.13.1 is too old (need 1.23 or newer); fix: run: %s -m pip install -U jupyter_server"},
		{"old ipykernel first", `{"python": "3.11.2", "ipykernel": "5.5.6", "jupyter_server": null}`,
			"ipykernel 5.5.6 is too old"},
		{"jupyter_server missing", `{"python": "3.11.2", "ipykernel": "6.29.5", "jupyter_server": null}`,
			"jupyter_server not installed for %s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			py := filepath.Join(t.TempDir(), "python")
			if err := os.WriteFile(py, []byte("#!/bin/sh\ncat <<'EOF'\n"+c.probe+"\nEOF\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			env, err := inspectPython(context.Background(), py, EnvExplicit)
			if c.want == "" {
				if err != nil || env.IPyKernel != "6.29.5" || env.JupyterServer != "2.14.0" {
					t.Fatalf("got %+v, %v; want the reported versions", env, err)
				}
				return
			}
			want := c.want
			if strings.Contains(want, "%s") {
				want = fmt.Sprintf(want, py)
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("error %v, want one containing %q", err, want)
			}
		})
	}
}
