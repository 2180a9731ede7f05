package agent

import (
	"context"
	"errors"
	"fmt"
	"github.com/freeact/desktop/agent/gate"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/permission"
	"github.com/freeact/desktop/internal/appdirs"
)

// Workspace is a folder opened for agents: scaffolded, its configuration
// loaded and its permission rules open. The terminal mode and the desktop
// app both open folders with OpenWorkspace and start agents with
// StartAgent, so a workspace behaves the same in both.
type Workspace struct {
	// Dir is the folder, absolute.
	Dir string
	// Created is set when OpenWorkspace created .freeact/.
	Created bool
	// Config is the configuration OpenWorkspace loaded; Load reads it
	// again.
	Config *config.Config
	// Permissions are the rules of .freeact/permissions.json (and of
	// freeact 0.11's permissions.toml).
	Permissions *permission.Manager

	keys *config.AppStore
	log  *slog.Logger
	dirs appdirs.Dirs
}

// WorkspaceOptions adjust OpenWorkspace.
type WorkspaceOptions struct {
	// Keys is the app's store of API keys, which fill in variables that
	// neither the environment nor the workspace .env set. Nil uses none.
	Keys *config.AppStore
	// Log receives the warnings that do not stop the opening (stored keys
	// that could not be read) and is the agents' logger. Nil discards.
	Log *slog.Logger
	// Dirs are where the agents keep their files (WithDirs); zero: the
	// user's folders.
	Dirs appdirs.Dirs
}

// OpenWorkspace opens the folder dir: it scaffolds what is missing of
// .freeact/ (config.Init), loads the configuration with the stored API keys
// and opens the permission rules.
func OpenWorkspace(dir string, o WorkspaceOptions) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("workspace %s is not a folder: create it or choose an existing folder", abs)
	}
	w := &Workspace{Dir: abs, keys: o.Keys, log: o.Log, dirs: o.Dirs}
	if w.log == nil {
		w.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	_, statErr := os.Stat(filepath.Join(abs, config.FreeactDir))
	w.Created = errors.Is(statErr, fs.ErrNotExist)
	if err := config.Init(abs); err != nil {
		return nil, fmt.Errorf("prepare %s: %w", filepath.Join(abs, config.FreeactDir), err)
	}
	if w.Config, err = w.Load(); err != nil {
		return nil, err
	}
	src := w.Config.Source
	if src.Format != "" && src.File != "" {
		w.log.Info("workspace settings", "file", src.File, "format", src.Format)
	}
	for _, n := range src.Notes {
		w.log.Info("workspace settings note", "note", n)
	}
	if w.Permissions, err = permission.Open(abs); err != nil {
		return nil, fmt.Errorf("open permissions: %w", err)
	}
	return w, nil
}

// Load reads the workspace's configuration again (agent.json, .env,
// skills, AGENTS.md) with the stored API keys. Keys that cannot be read are
// logged and left out: a key in the environment or .env may do.
func (w *Workspace) Load() (*config.Config, error) {
	cfg, err := config.Load(w.Dir, w.LoadOptions())
	if err != nil {
		return nil, fmt.Errorf("load workspace configuration: %w", err)
	}
	return cfg, nil
}

// LoadOptions are the options Load reads the workspace with: the app's
// stored API keys as the last source of variables.
func (w *Workspace) LoadOptions() config.LoadOptions {
	var keys map[string]string
	if w.keys != nil {
		var err error
		if keys, err = w.keys.APIKeys(); err != nil {
			w.log.Warn("stored API keys not read", "err", err)
		}
	}
	return config.LoadOptions{APIKeys: keys}
}

// AppDirs are the app's folders this workspace's agents use (the user's
// when OpenWorkspace was given none): where its conversations' locks are.
func (w *Workspace) AppDirs() appdirs.Dirs {
	if w.dirs.Data == "" {
		return appdirs.FromXDG()
	}
	return w.dirs
}

// StartAgent creates an agent over cfg (this workspace's configuration as
// Load returned it, possibly adjusted) with the workspace's permission
// rules and logger (and, in sandbox mode, the key store hidden from
// code), then opts, and starts it. A failed start is stopped
// again, so nothing it started outlives the error.
func (w *Workspace) StartAgent(ctx context.Context, cfg *config.Config, opts ...Option) (*Agent, error) {
	first := []Option{WithPermissions(w.Permissions), WithLogger(w.log)}
	if w.dirs.Data != "" {
		first = append(first, WithDirs(w.dirs))
	}
	if w.keys != nil {
		// The stored API keys are as hidden from sandboxed code as .env.
		first = append(first, func(o *options) { o.hidden, o.keyDir = append(o.hidden, w.keys.Dir()), w.keys.Dir() })
	}
	if w.dirs.Config != "" {
		r, err := gate.Load(w.dirs, w.log, cfg.Dir)
		if err != nil {
			return nil, err
		}
		first = append(first, WithHooks(r))
	}
	a, err := New(cfg, append(first, opts...)...)
	if err != nil {
		return nil, err
	}
	if err := a.Start(ctx); err != nil {
		_ = a.Stop()
		return nil, err
	}
	return a, nil
}
