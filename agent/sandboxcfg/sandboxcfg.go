// Package sandboxcfg owns the sandbox settings a workspace asks for: the
// kernel.Sandbox of agent.json (the workspace, .freeact read-only, the
// generated tools and plans writable, .env and the server's Python
// protected, the app's secret stores hidden), the file sandbox_config
// names, and which files change what the agent may do without asking.
// It needs no agent: the agent hands it its configuration and the paths
// that no sandbox may read.
package sandboxcfg

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/permission"
	"github.com/freeact/desktop/internal/appdirs"
	"github.com/freeact/desktop/kernel"
)

// Settings returns the kernel sandbox that agent.json asks for, or nil.
// sandbox_config is relative to the workspace unless absolute. secret
// are the paths no sandbox may read (see Hidden).
func Settings(cfg *config.Config, secret []string) (*kernel.Sandbox, error) {
	o := cfg.Options
	if !o.Sandbox {
		return nil, nil
	}
	if o.JupyterURL != nil && *o.JupyterURL != "" {
		return nil, errors.New("sandbox mode confines the local kernel and cannot be used with jupyter_url: turn one of them off in .freeact/agent.json")
	}
	hide := Hidden(secret)
	return &kernel.Sandbox{
		Workspace: cfg.Dir, Settings: ConfigFile(cfg),
		// .freeact holds the settings, the permission rules and freeact
		// 0.11's config.toml and permissions.toml (which win when they
		// appear): none of it may change from inside. Generated tools and
		// plans are written by code.
		Config:   cfg.FreeactDir,
		Writable: []string{cfg.GeneratedDir(), cfg.PlansDir()},
		// The agent reads .env (variables for ${VAR}, API keys, base
		// URLs), and the workspace's .venv runs the Jupyter server outside
		// the sandbox when no python is set.
		Protect: []string{
			filepath.Join(cfg.Dir, config.DotEnvFile),
			filepath.Join(cfg.Dir, ".venv") + string(filepath.Separator),
		},
		Hide: hide,
	}, nil
}

// Hidden are the paths no sandbox may read: the app's secret stores
// (appdirs.Dirs.Secrets: keys, sign-ins, checkpoints, locks, every
// kernel's connection file and sockets), and the folders options moved
// one of them to, each once ("" left out). Each is made now (0700) when
// missing, so the sandbox has a folder to hide before the store's first
// file: a path that does not exist when a sandbox starts would stay
// visible in it once made.
func Hidden(paths []string) []string {
	var hide []string
	for _, p := range paths {
		if p != "" && !slices.Contains(hide, p) {
			hide = append(hide, p)
		}
	}
	for _, p := range hide {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			_ = appdirs.MakePrivate(p)
		}
	}
	return hide
}

// ProtectServerEnv adds to the sandbox's protected paths the Python
// environment freeact also runs outside the sandbox (to probe its
// packages at every start, and for a local jupyter_server when one is
// asked for), when it lies in the workspace: a venv as a whole (its
// site-packages are imported there), or else the interpreter itself.
// Code in the sandbox that rewrote it would run outside it next time.
func ProtectServerEnv(sb *kernel.Sandbox, workspace, python string) {
	if sb == nil {
		return
	}
	rel, err := filepath.Rel(workspace, python)
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		return
	}
	root := filepath.Dir(filepath.Dir(python))
	if _, err := os.Stat(filepath.Join(root, "pyvenv.cfg")); err == nil && root != workspace {
		sb.Protect = append(sb.Protect, root+string(filepath.Separator))
		return
	}
	sb.Protect = append(sb.Protect, python)
}

// ConfigFile returns the file sandbox_config names (relative to the
// workspace unless absolute), or "".
func ConfigFile(cfg *config.Config) string {
	switch p := cfg.Options.SandboxConfig; {
	case p == nil || *p == "":
		return ""
	case filepath.IsAbs(*p):
		return *p
	default:
		return filepath.Join(cfg.Dir, *p)
	}
}

// ProtectConfig tells the permission manager which files change what the
// agent may do without asking: agent.json, freeact 0.11's config.toml and
// the sandbox settings (the app's file and the one sandbox_config names).
// Writes of them are asked every time.
func ProtectConfig(perm *permission.Manager, cfg *config.Config) {
	if perm == nil {
		return
	}
	perm.Protect(filepath.Join(cfg.FreeactDir, config.AgentFile), filepath.Join(cfg.FreeactDir, config.ConfigTOML),
		filepath.Join(cfg.FreeactDir, config.SandboxFile), ConfigFile(cfg))
}
