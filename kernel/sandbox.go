package kernel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/freeact/desktop/internal/atomicfile"
)

// Sandbox runs the local server's kernels under Anthropic's sandbox-runtime
// (srt), which on Linux confines them with bubblewrap: a filesystem that is
// read-only except for the allowed paths, hidden secrets, and no network
// namespace at all. The Jupyter server itself stays outside; it talks to
// the kernels over Unix sockets (ZeroMQ's ipc transport) in its runtime
// directory, and callbacks to the host travel on the kernel's own channels,
// so a kernel needs no network.
type Sandbox struct {
	// Srt is the srt executable; default "srt" on PATH.
	Srt string
	// Settings is a settings file in srt's format that replaces the default
	// restrictions (sandbox_config). The kernel's own needs are added to it
	// (see sandboxSettings); its network and filesystem rules are kept.
	Settings string
	// Workspace is where kernels may write; default ServerOptions.Root.
	Workspace string
	// Config is a folder of files that decide what the agent may do
	// without asking (the workspace's .freeact). Code sees what it holds
	// at the server's start but can change, replace or remove none of it,
	// and nothing it adds there reaches the disk; only the Writable folders
	// in it stay writable. Created when missing.
	Config string
	// Writable are folders directly inside Config that code may change
	// (generated tools, plans); created when missing.
	Writable []string
	// Protect are further paths that code may neither change nor create,
	// replace or remove: what the agent reads or runs outside the sandbox
	// (the workspace's .env, the environment whose Python runs the Jupyter
	// server). bubblewrap can only protect what exists, so a missing one is
	// held by an empty placeholder while the server runs (a folder when the
	// path ends in a separator), removed when it stops if still empty.
	Protect []string
	// Hide are further paths code may not read (the app's own settings
	// and stored API keys).
	Hide []string
}

// sandboxPaths are the sandbox's files under the server's directory.
type sandboxPaths struct {
	settings string // the effective srt settings
	kernels  string // each sandboxed kernel's own settings; hidden
	tmp      string // TMPDIR inside the sandbox
	mpl      string // MPLCONFIGDIR inside the sandbox
	srtTmp   string // TMPDIR of srt itself (its proxy sockets); removed on stop
	// ipc holds the kernels' ZeroMQ sockets behind a local jupyter_server
	// (launched directly, each kernel's are in its own folder); removed
	// on stop.
	ipc string
	// runtime is ServerOptions.RuntimeDir: hidden, but for a kernel's own
	// folder.
	runtime string
	// base is the effective settings (JSON) without a kernel's folder.
	base []byte
	// placeholders hold missing Protect paths; removed on stop if still
	// the empty file or folder made.
	placeholders []placeholder
}

// placeholder is an empty file or folder made to hold a protected path.
type placeholder struct {
	path string
	made os.FileInfo
}

// ipcBase is where the folder of srt's Unix sockets goes: a socket path
// has at most 107 bytes, which a folder under the app's state directory
// can exceed with the socket's name added.
const ipcBase = "/tmp"

// maxSocketPath is the longest path of a Unix socket (sun_path less its
// terminating zero).
const maxSocketPath = 107

// sandboxSettingsArg stands for a kernel's own settings file in the
// sandboxed kernel command.
const sandboxSettingsArg = "{sandbox_settings}"

func newSandboxPaths(dir string) sandboxPaths {
	d := filepath.Join(dir, "sandbox")
	return sandboxPaths{
		settings: filepath.Join(d, "srt-settings.json"),
		kernels:  filepath.Join(d, "kernels"),
		tmp:      filepath.Join(d, "tmp"),
		mpl:      filepath.Join(d, "matplotlib"),
	}
}

// srtSettings is the part of srt's settings format we write. Unknown keys of
// a user's file are kept (see mergeSettings).
type srtSettings struct {
	Network struct {
		AllowedDomains      []string `json:"allowedDomains"`
		DeniedDomains       []string `json:"deniedDomains"`
		AllowAllUnixSockets bool     `json:"allowAllUnixSockets"`
		AllowLocalBinding   bool     `json:"allowLocalBinding,omitempty"`
	} `json:"network"`
	Filesystem struct {
		DenyRead   []string `json:"denyRead"`
		AllowWrite []string `json:"allowWrite"`
		DenyWrite  []string `json:"denyWrite"`
	} `json:"filesystem"`
}

// DefaultSandboxSettings are the restrictions without a custom file: read
// everything except .env files, the sandbox settings and the host's socket
// directories; write only in the workspace; no network. Paths are absolute.
func DefaultSandboxSettings(workspace string) map[string]any {
	return map[string]any{
		"network": map[string]any{"allowedDomains": []string{}, "deniedDomains": []string{}},
		"filesystem": map[string]any{
			"denyRead":   []string{filepath.Join(workspace, "**", ".env"), filepath.Join(workspace, ".env")},
			"allowWrite": []string{workspace},
			"denyWrite":  []string{},
		},
	}
}

// sandboxSettings returns the effective settings: the user's file (or the
// defaults) plus what a kernel needs and what must stay protected.
//
// srt on Linux turns a denyWrite entry into a read-only bind mount, which
// protects only what exists (for a missing path it makes an empty mount
// point on the host, whose existence alone would change the agent's
// settings for a config.toml, and which another srt's clean-up can remove
// while a kernel runs), and a write allowed beneath a denied folder comes
// back read-only. So the Config folder is not denied writes but hidden
// (a denyRead folder becomes an empty tmpfs) with its entries bound back:
// the Writable folders writable (allowWrite), the others read-only
// (allowRead). A file added there inside the sandbox lands in the tmpfs,
// and every entry is a mount point, which cannot be renamed or removed.
// Entries are listed when the server starts; the folder and its Writable
// folders must exist by then (prepareSandbox makes them). A file a
// denyRead entry names is not bound back: an allowRead naming the same
// file would lift that deny. The Protect paths exist by then too, and are
// denied writes.
//
// A kernel needs to create Unix sockets (ZeroMQ's ipc transport), which
// srt's seccomp filter forbids unless allowAllUnixSockets is on; srt has no
// per-path allowance on Linux. With it on, code may create Unix sockets and
// connect to ones it can see, so the host's socket directories (/run,
// /var/run, $XDG_RUNTIME_DIR: D-Bus, Docker, ...) are hidden. It also needs
// to write its connection's sockets in the server's runtime directory, its
// IPython profile, a TMPDIR and a matplotlib cache; those are private to the
// app. The settings
// files themselves are neither readable nor writable inside.
func sandboxSettings(sb Sandbox, runtimeDir, ipythonDir string, p sandboxPaths) ([]byte, error) {
	base := DefaultSandboxSettings(sb.Workspace)
	var protect []string
	if sb.Settings != "" {
		data, err := os.ReadFile(sb.Settings)
		if err != nil {
			return nil, fmt.Errorf("read sandbox settings: %w", err)
		}
		if base, err = ParseSandboxSettings(data); err != nil {
			return nil, fmt.Errorf("sandbox settings %s: %w", sb.Settings, err)
		}
		protect = append(protect, sb.Settings)
	}
	protect = append(protect, p.settings, p.kernels)
	network := section(base, "network")
	network["allowAllUnixSockets"] = true
	files := section(base, "filesystem")
	hidden := []string{"/run", "/var/run"}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		hidden = append(hidden, d)
	}
	// The kernels' runtime folder holds every kernel's connection file and
	// sockets: hidden, each kernel gets its own folder back (see
	// kernelSettings).
	hidden = append(hidden, p.runtime)
	denyRead := addStrings(files["denyRead"], append(append(hidden, protect...), sb.Hide...)...)
	allowWrite := addStrings(files["allowWrite"], runtimeDir, ipythonDir, p.tmp, p.mpl)
	if p.ipc != "" {
		allowWrite = addStrings(allowWrite, p.ipc)
	}
	var allowRead []string
	if sb.Config != "" {
		shown, err := configEntries(sb, denyRead, protect)
		if err != nil {
			return nil, err
		}
		denyRead = addStrings(denyRead, sb.Config)
		allowRead = shown
		allowWrite = addStrings(allowWrite, sb.Writable...)
	}
	files["denyRead"] = denyRead
	for _, path := range sb.Protect {
		protect = append(protect, filepath.Clean(path))
	}
	files["denyWrite"] = addStrings(files["denyWrite"], protect...)
	files["allowWrite"] = allowWrite
	if len(allowRead) > 0 {
		files["allowRead"] = addStrings(files["allowRead"], allowRead...)
	}
	return json.MarshalIndent(base, "", "  ")
}

// configEntries lists what of the Config folder is bound back read-only:
// every entry but the Writable folders, the protected settings files and
// files a denyRead entry names (literally, or as a glob).
func configEntries(sb Sandbox, denyRead, protect []string) ([]string, error) {
	entries, err := os.ReadDir(sb.Config)
	if err != nil {
		return nil, fmt.Errorf("list the protected folder: %w", err)
	}
	var shown []string
	for _, e := range entries {
		p := filepath.Join(sb.Config, e.Name())
		if slices.Contains(sb.Writable, p) || slices.Contains(protect, p) {
			continue
		}
		if !e.IsDir() && slices.ContainsFunc(denyRead, func(d string) bool {
			d = absPattern(d, sb.Workspace)
			ok, _ := doublestar.Match(d, p)
			return d == p || ok
		}) {
			continue
		}
		shown = append(shown, p)
	}
	return shown, nil
}

// absPattern is a path of srt's settings as srt reads it for a kernel:
// "~" is the home folder, and a relative path is relative to the kernel's
// working directory, the workspace.
func absPattern(p, workspace string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	if !filepath.IsAbs(p) {
		return filepath.Join(workspace, p)
	}
	return p
}

// protectPaths makes the folders the sandbox protects or keeps writable,
// and a placeholder for each missing Protect path (an empty folder when
// the path ends in a separator, else an empty file). A path that cannot
// be made is left: the sandbox, running as the same user, cannot make it
// either.
func protectPaths(sb Sandbox, p *sandboxPaths) error {
	if sb.Config != "" {
		for _, d := range append([]string{sb.Config}, sb.Writable...) {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return fmt.Errorf("create %s: %w", d, err)
			}
		}
	}
	for _, path := range sb.Protect {
		dir := strings.HasSuffix(path, string(filepath.Separator))
		path = filepath.Clean(path)
		if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		var err error
		if dir {
			err = os.Mkdir(path, 0o755)
		} else {
			var f *os.File
			if f, err = os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
				err = f.Close()
			}
		}
		if err != nil {
			continue
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return fmt.Errorf("hold %s: %w", path, err)
		}
		p.placeholders = append(p.placeholders, placeholder{path: path, made: fi})
	}
	return nil
}

// ParseSandboxSettings checks a settings file in srt's format: a JSON
// object whose network and filesystem sections, when present, have the
// shape srt expects. It returns the decoded object.
func ParseSandboxSettings(data []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		if err == nil {
			err = errors.New("null")
		}
		return nil, fmt.Errorf("not a JSON object (%v): want {\"network\": {...}, \"filesystem\": {...}}", err)
	}
	var typed srtSettings
	if err := json.Unmarshal(data, &typed); err != nil {
		return nil, fmt.Errorf("%v: see srt's settings format (network.allowedDomains, network.deniedDomains, filesystem.denyRead, filesystem.allowWrite, filesystem.denyWrite: lists of strings)", err)
	}
	// srt drops every filesystem rule then, freeact's protection of its own
	// files with them.
	if files, ok := m["filesystem"].(map[string]any); ok && files["disabled"] != nil && files["disabled"] != false {
		return nil, errors.New(`filesystem.disabled is not supported: freeact keeps its settings and .env protected with the filesystem rules; to let code write everywhere, use "allowWrite": ["/"]`)
	}
	return m, nil
}

func section(m map[string]any, key string) map[string]any {
	s, ok := m[key].(map[string]any)
	if !ok {
		s = map[string]any{}
		m[key] = s
	}
	return s
}

// addStrings appends to a JSON list of strings (any, from a decoded file)
// the values it lacks.
func addStrings(list any, add ...string) []string {
	var out []string
	if l, ok := list.([]any); ok {
		for _, v := range l {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
	} else if l, ok := list.([]string); ok {
		out = append(out, l...)
	}
	for _, s := range add {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// sandboxInstallHint says how to get what sandbox mode needs on Debian and
// Ubuntu.
const sandboxInstallHint = "install them with: sudo apt-get install bubblewrap socat ripgrep && npm install -g @anthropic-ai/sandbox-runtime"

// sandboxSupported says why sandbox mode cannot run on the system goos:
// srt confines the kernel with bubblewrap, which is Linux's alone here.
func sandboxSupported(goos string) error {
	if goos == "linux" {
		return nil
	}
	return fmt.Errorf("the sandbox needs Linux (bubblewrap), and this is %s: "+
		"set \"sandbox\": false in .freeact/agent.json to run without it", goos)
}

// prepareSandbox checks that the sandbox can run and writes its files. It
// runs a trivial command under srt with the effective settings, so a missing
// tool, disabled user namespaces or a broken settings file are reported here,
// once, instead of as a kernel that never starts. It never falls back to
// running without the sandbox.
func prepareSandbox(ctx context.Context, opts *ServerOptions) (sandboxPaths, error) {
	sb := opts.Sandbox
	p := newSandboxPaths(opts.Dir)
	if err := sandboxSupported(runtime.GOOS); err != nil {
		return p, err
	}
	if sb.Workspace == "" {
		sb.Workspace = opts.Root
	}
	if sb.Srt == "" {
		sb.Srt = "srt"
	}
	var missing []string
	srt, err := exec.LookPath(sb.Srt)
	if err != nil {
		missing = append(missing, "srt (npm package @anthropic-ai/sandbox-runtime)")
	}
	for _, tool := range []string{"bwrap", "socat", "rg"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		return p, fmt.Errorf("sandbox mode needs %s, which %s not found on PATH; %s",
			strings.Join(missing, ", "), map[bool]string{true: "is", false: "are"}[len(missing) == 1], sandboxInstallHint)
	}
	sb.Srt = srt
	for _, d := range []string{p.tmp, p.mpl, p.kernels} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return p, fmt.Errorf("create sandbox directory: %w", err)
		}
	}
	if err := protectPaths(*sb, &p); err != nil {
		_ = cleanSandbox(p)
		return p, fmt.Errorf("sandbox: %w", err)
	}
	base := ipcBase
	if _, err := os.Stat(base); err != nil {
		base = os.TempDir()
	}
	p.runtime = opts.RuntimeDir
	if opts.JupyterServer {
		// The server picks the kernels' connection files (in its runtime
		// folder) and sockets: one folder for all its kernels.
		if p.ipc, err = os.MkdirTemp(p.runtime, "ipc-"); err != nil {
			_ = cleanSandbox(p)
			return p, fmt.Errorf("create the kernels' socket directory: %w", err)
		}
	}
	if p.srtTmp, err = os.MkdirTemp(base, "freeact-srt-"); err != nil {
		_ = cleanSandbox(p)
		return p, fmt.Errorf("create srt's socket directory: %w", err)
	}
	dirs := jupyterDirs(opts.Dir)
	settings, err := sandboxSettings(*sb, dirs["JUPYTER_RUNTIME_DIR"], dirs["IPYTHONDIR"], p)
	if err != nil {
		_ = cleanSandbox(p)
		return p, err
	}
	if err := atomicfile.Write(p.settings, settings, 0o600); err != nil {
		return p, fmt.Errorf("write sandbox settings: %w", err)
	}
	p.base = settings
	opts.Sandbox = sb
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sb.Srt, "--settings", p.settings, "true")
	cmd.Env = append(os.Environ(), "TMPDIR="+p.srtTmp)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(out.String())
		if strings.Contains(msg, "namespace") || strings.Contains(msg, "Operation not permitted") {
			msg += "\nuser namespaces seem to be disabled: enable them (sysctl kernel.unprivileged_userns_clone=1) or run without sandbox mode"
		}
		_ = cleanSandbox(p)
		return p, fmt.Errorf("sandbox mode cannot start: %s failed: %v: %s", sb.Srt, err, msg)
	}
	return p, nil
}

// sandboxArgv is the kernel command under srt. setpriv ties srt to the
// server's life (bubblewrap is tied to srt's, and the kernel lives in
// bubblewrap's PID namespace); env fixes the variables srt replaces with
// paths that may not exist; JPY_PARENT_PID is dropped because the server's
// PID means nothing inside the PID namespace (the kernel would think its
// parent gone and exit).
func sandboxArgv(sb *Sandbox, p sandboxPaths, settings, ipythonDir string, kernelArgv []string) []string {
	argv := []string{}
	if setpriv, err := exec.LookPath("setpriv"); err == nil {
		argv = append(argv, setpriv, "--pdeathsig", "KILL")
	}
	argv = append(argv, "env", "TMPDIR="+p.srtTmp, sb.Srt, "--settings", settings,
		"env", "-u", "JPY_PARENT_PID", "TMPDIR="+p.tmp, "MPLCONFIGDIR="+p.mpl, "IPYTHONDIR="+ipythonDir)
	return append(argv, kernelArgv...)
}

// writeKernelSettings writes to file the settings of the kernel whose
// private folder is dir: the server's, with that folder writable (and so
// back from under the hidden runtime folder). No other kernel's settings
// name it.
func writeKernelSettings(p sandboxPaths, file, dir string) error {
	var m map[string]any
	if err := json.Unmarshal(p.base, &m); err != nil {
		return fmt.Errorf("the kernel's sandbox settings: %w", err)
	}
	files := section(m, "filesystem")
	files["allowWrite"] = addStrings(files["allowWrite"], dir)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("the kernel's sandbox settings: %w", err)
	}
	if err := atomicfile.Write(file, b, 0o600); err != nil {
		return fmt.Errorf("write the kernel's sandbox settings: %w", err)
	}
	return nil
}

// cleanSandbox removes what srt and the kernels may leave behind when they
// are killed (proxy sockets, kernel sockets and temporary files) and the
// placeholders that are still what was made: an empty file or folder.
func cleanSandbox(p sandboxPaths) error {
	var errs []error
	for _, h := range p.placeholders {
		fi, err := os.Lstat(h.path)
		if err != nil || !os.SameFile(fi, h.made) {
			continue
		}
		if fi.IsDir() || fi.Size() == 0 {
			_ = os.Remove(h.path) // fails on a folder that has been filled
		}
	}
	for _, d := range []string{p.srtTmp, p.ipc} {
		if d == "" {
			continue
		}
		if err := os.RemoveAll(d); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove sandbox leftovers: %w", err))
		}
	}
	return errors.Join(errs...)
}
