package kernel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// provisionPackages is what a provisioned environment gets from the package
// index. pydantic is there for the tools the agent writes and the Python
// freeact's tools, which define their models with it.
func provisionPackages() []string {
	return []string{"ipykernel", "jupyter_server", "matplotlib", "numpy", "pandas", "pydantic"}
}

// Minimum versions the hooks and the client are tested with (Debian 12 ships
// ipykernel 6.17 and jupyter_server 1.23).
const (
	minPython        = "3.9"
	minIPyKernel     = "6.17"
	minJupyterServer = "1.23"
)

// EnvSource says where a resolved environment came from.
type EnvSource string

const (
	EnvExplicit    EnvSource = "explicit"    // the interpreter set in the configuration
	EnvWorkspace   EnvSource = "workspace"   // <workspace>/.venv
	EnvProvisioned EnvSource = "provisioned" // the app's own environment under the XDG data dir
)

// Env is a Python environment that can run the Jupyter server and kernels.
type Env struct {
	Python        string // absolute path of the interpreter
	Source        EnvSource
	PythonVersion string
	IPyKernel     string // ipykernel version
	JupyterServer string // jupyter_server version
}

// Progress reports provisioning steps to a GUI. Fraction is in [0,1], or -1
// when unknown.
type Progress struct {
	Step     string
	Fraction float64
}

// EnvOptions tell ResolveEnv where to look.
type EnvOptions struct {
	// Python is an explicit interpreter (agent.json). When set, it is the
	// only candidate: a broken explicit setting is an error, never silently
	// replaced.
	Python string
	// Workspace whose .venv is tried next.
	Workspace string
	// DataDir is where the app provisions its own environment
	// (appdirs.Dirs.Data); "" for none.
	DataDir string
	// SharedDirs are searched after DataDir for an environment an
	// administrator provisioned for every user (appdirs.Dirs.DataDirs);
	// they are only read.
	SharedDirs []string
	// Provision allows creating the app's environment with pip when nothing
	// else works. Without it a missing environment is an error naming the fix.
	Provision bool
	// BasePython creates the provisioned venv; default python3 on PATH.
	BasePython string
	// Progress, if set, receives provisioning steps.
	Progress func(Progress)
	// PipArgs are extra arguments for pip install (e.g. --no-index
	// --find-links DIR for offline installs); PIP_* environment variables
	// work too.
	PipArgs []string
}

// ProvisionedPython is the interpreter of the app's own environment under dataDir.
func ProvisionedPython(dataDir string) string {
	return filepath.Join(dataDir, "python", "venv", "bin", "python")
}

// ResolveEnv finds the Python environment: the explicit interpreter, else
// the workspace .venv, else the app's environment under the data directory,
// else one under a shared data directory, else the app's environment
// created with pip (if opts.Provision). The error, if any, names what is
// missing and the command that fixes it.
func ResolveEnv(ctx context.Context, opts EnvOptions) (*Env, error) {
	if opts.Provision && opts.DataDir == "" {
		return nil, errors.New("python environment: no data folder to provision in (EnvOptions.DataDir)")
	}
	if opts.Python != "" {
		env, err := inspectPython(ctx, opts.Python, EnvExplicit)
		if err != nil {
			return nil, fmt.Errorf("python environment (explicit interpreter %s): %w", opts.Python, err)
		}
		return env, nil
	}
	var reasons []string
	if opts.Workspace != "" {
		py := filepath.Join(opts.Workspace, ".venv", "bin", "python")
		if _, err := os.Stat(py); err == nil {
			env, err := inspectPython(ctx, py, EnvWorkspace)
			if err == nil {
				return env, nil
			}
			reasons = append(reasons, fmt.Sprintf("workspace venv %s: %v", py, err))
		}
	}
	py := ProvisionedPython(opts.DataDir)
	for i, dir := range append([]string{opts.DataDir}, opts.SharedDirs...) {
		if dir == "" {
			continue
		}
		shared := ProvisionedPython(dir)
		if _, err := os.Stat(shared); err != nil {
			continue
		}
		env, err := inspectPython(ctx, shared, EnvProvisioned)
		if err == nil {
			return env, nil
		}
		if i > 0 || !opts.Provision { // the app's own is provisioned again below
			reasons = append(reasons, fmt.Sprintf("app environment %s: %v", shared, err))
		}
	}
	if opts.Provision {
		env, err := provision(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("python environment: provisioning %s failed: %w", filepath.Dir(filepath.Dir(py)), err)
		}
		return env, nil
	}
	msg := "python environment: no usable Python with ipykernel and jupyter_server found"
	if len(reasons) > 0 {
		msg += " (" + strings.Join(reasons, "; ") + ")"
	}
	return nil, fmt.Errorf("%s; fix: set \"python\" in .freeact/agent.json, or run: python3 -m venv .venv && .venv/bin/pip install %s",
		msg, strings.Join(provisionPackages(), " "))
}

const probeScript = noCwdImports + `import json
out = {"python": "%d.%d.%d" % sys.version_info[:3]}
for m in ("ipykernel", "jupyter_server"):
    try:
        mod = __import__(m)
        out[m] = getattr(mod, "__version__", "0")
    except Exception as e:
        out[m] = None
print(json.dumps(out))
`

// inspectPython runs py and checks the versions it reports.
func inspectPython(ctx context.Context, py string, src EnvSource) (*Env, error) {
	abs, err := filepath.Abs(py)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("interpreter not found: %w", err)
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, abs, "-c", probeScript)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("running %s failed: %v %s", abs, err, strings.TrimSpace(stderr.String()))
	}
	var v struct {
		Python        string  `json:"python"`
		IPyKernel     *string `json:"ipykernel"`
		JupyterServer *string `json:"jupyter_server"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &v); err != nil {
		return nil, fmt.Errorf("unexpected output from %s: %q", abs, out)
	}
	env := &Env{Python: abs, Source: src, PythonVersion: v.Python}
	fix := fmt.Sprintf("run: %s -m pip install %s", abs, strings.Join(provisionPackages(), " "))
	if !versionAtLeast(v.Python, minPython) {
		return nil, fmt.Errorf("python %s is too old (need %s or newer); fix: point \"python\" in .freeact/agent.json to a newer interpreter", v.Python, minPython)
	}
	var missing []string
	for _, p := range []struct {
		name, min string
		have, dst *string
	}{
		{"ipykernel", minIPyKernel, v.IPyKernel, &env.IPyKernel},
		{"jupyter_server", minJupyterServer, v.JupyterServer, &env.JupyterServer},
	} {
		switch {
		case p.have == nil:
			missing = append(missing, p.name)
		case !versionAtLeast(*p.have, p.min):
			return nil, fmt.Errorf("%s %s is too old (need %s or newer); fix: run: %s -m pip install -U %s", p.name, *p.have, p.min, abs, p.name)
		default:
			*p.dst = *p.have
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s not installed for %s; fix: %s", strings.Join(missing, " and "), abs, fix)
	}
	return env, nil
}

// versionAtLeast compares dotted numeric prefixes ("6.17.0rc1" >= "6.17").
func versionAtLeast(have, want string) bool {
	h, w := versionParts(have), versionParts(want)
	for i := range w {
		var x int
		if i < len(h) {
			x = h[i]
		}
		if x != w[i] {
			return x > w[i]
		}
	}
	return true
}

func versionParts(v string) []int {
	var out []int
	for _, p := range strings.Split(v, ".") {
		end := 0
		for end < len(p) && p[end] >= '0' && p[end] <= '9' {
			end++
		}
		n, err := strconv.Atoi(p[:end])
		if err != nil {
			break
		}
		out = append(out, n)
		if end < len(p) {
			break
		}
	}
	return out
}

// provision creates the app's venv (in a temporary directory renamed into
// place when complete, so an interrupted install never looks usable) and
// installs provisionPackages with pip.
func provision(ctx context.Context, opts EnvOptions) (*Env, error) {
	report := func(step string, f float64) {
		if opts.Progress != nil {
			opts.Progress(Progress{Step: step, Fraction: f})
		}
	}
	base := opts.BasePython
	if base == "" {
		p, err := exec.LookPath("python3")
		if err != nil {
			return nil, errors.New("no python3 on PATH to create the environment from; fix: install Python 3 (e.g. sudo apt install python3 python3-venv) or set \"python\" in .freeact/agent.json")
		}
		base = p
	}
	root := filepath.Join(opts.DataDir, "python")
	final := filepath.Join(root, "venv")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(root, "venv-tmp-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	// venv records absolute paths in scripts, so create it at its final path:
	// build in tmp, then move it; the interpreter itself is path-independent
	// when started as venv/bin/python (pyvenv.cfg is found next to it).
	report("creating virtual environment", 0.05)
	// python -m puts the working directory first on sys.path: run where
	// no module of the workspace can shadow venv or pip.
	mkvenv := exec.CommandContext(ctx, base, "-m", "venv", tmp)
	mkvenv.Dir = root
	if out, err := mkvenv.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%s -m venv: %v: %s; fix: install the venv module (e.g. sudo apt install python3-venv)", base, err, lastLines(out, 5))
	}
	py := filepath.Join(tmp, "bin", "python")
	args := append([]string{"-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off"}, opts.PipArgs...)
	args = append(args, provisionPackages()...)
	cmd := exec.CommandContext(ctx, py, args...)
	cmd.Env = append(os.Environ(), "PYTHONUNBUFFERED=1")
	cmd.Dir = root
	pr := &pipProgress{report: report, total: len(provisionPackages())}
	cmd.Stdout = pr
	cmd.Stderr = pr
	report("installing "+strings.Join(provisionPackages(), ", "), 0.1)
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("pip install %s: %v: %s", strings.Join(provisionPackages(), " "), err, lastLines(pr.tail.Bytes(), 8))
	}
	report("finishing", 0.95)
	if err := os.RemoveAll(final); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, final); err != nil {
		return nil, err
	}
	// Scripts in bin/ point at the temporary path; the kernel and server
	// are always started as "python -m ...", which does not use them.
	env, err := inspectPython(ctx, ProvisionedPython(opts.DataDir), EnvProvisioned)
	if err != nil {
		return nil, err
	}
	report("ready", 1)
	return env, nil
}

// pipProgress turns pip's "Collecting X" / "Installing" lines into progress
// steps and keeps the tail of the output for error messages.
type pipProgress struct {
	report  func(string, float64)
	total   int
	seen    int
	partial []byte
	tail    bytes.Buffer
}

func (p *pipProgress) Write(b []byte) (int, error) {
	p.tail.Write(b)
	if p.tail.Len() > 16<<10 {
		rest := p.tail.Bytes()[p.tail.Len()-8<<10:]
		p.tail = *bytes.NewBuffer(append([]byte(nil), rest...))
	}
	p.partial = append(p.partial, b...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimSpace(string(p.partial[:i]))
		p.partial = p.partial[i+1:]
		switch {
		case strings.HasPrefix(line, "Collecting "), strings.HasPrefix(line, "Processing "):
			p.seen++
			f := 0.1 + 0.6*float64(p.seen)/float64(p.seen+p.total)
			p.report(line, f)
		case strings.HasPrefix(line, "Installing collected packages"):
			p.report("installing packages", 0.75)
		case strings.HasPrefix(line, "Successfully installed"):
			p.report("installed", 0.9)
		}
	}
	return len(b), nil
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
