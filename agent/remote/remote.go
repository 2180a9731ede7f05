// Package remote owns the workspace of an agent whose kernels run on a
// remote Jupyter server (jupyter_url): where the kernels work, syncing
// the generated tools and skills there, and copying images and offloaded
// results.
package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/kernel"
)

// Workspace is the workspace of an agent whose kernels run on a
// remote Jupyter server (jupyter_url) that does not share the user's
// files: the kernels' working directory, the file tools, images, offloaded
// results, the generated Python tools and the skills are on the server,
// under jupyter_workdir. Approvals, permission rules, the session files
// and the MCP servers stay on the user's machine. The agent and its
// subagents share it.
type Workspace struct {
	srv   *kernel.Server
	files *kernel.Files // set by openRemote
	log   *slog.Logger

	mu    sync.Mutex
	sent  map[string]string // remote path → SHA-256 of what is there, as far as we put or saw it
	stamp string            // the local files' sizes and times at the last sync
}

// KernelOptions points a kernel's options at the remote workspace: its
// working directory and import path, and the images folder its output
// names (images are saved locally too, for the window, and copied to the
// server after each cell). Before openRemote the first kernel keeps the
// folder it starts in.
func (r *Workspace) KernelOptions(cfg *config.Config, o *kernel.KernelOptions) {
	if r == nil {
		return
	}
	o.Workspace, o.PythonPath, o.ImagesLink = "", nil, imagesLink(cfg)
	if r.files != nil {
		o.Workspace = r.files.Root()
		o.PythonPath = []string{r.Path(config.GeneratedPath())}
	}
}

// imagesLink is the images folder as the output names it: relative to the
// workspace (it is the same folder in both), or the absolute images_dir.
func imagesLink(cfg *config.Config) string {
	dir := cfg.ImagesDir()
	if rel, err := filepath.Rel(cfg.Dir, dir); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return dir
}

// Path is the server's path of rel, a path relative to the workspace (or
// an absolute path, which stays).
func (r *Workspace) Path(rel string) string {
	rel = filepath.ToSlash(rel)
	if path.IsAbs(rel) {
		return path.Clean(rel)
	}
	return path.Join(r.files.Root(), rel)
}

// Refresh puts the generated tools and skills that changed on the user's
// machine on the server, before a cell imports them or a file tool reads
// them (a server connected late regenerates its modules; a reloaded
// configuration brings new skills).
func (r *Workspace) Refresh(ctx context.Context, cfg *config.Config) error {
	if r == nil || r.files == nil {
		return nil
	}
	return r.Sync(ctx, cfg)
}

// AfterCell copies the images a cell showed to the server's images folder
// (the output names them there).
func (r *Workspace) AfterCell(ctx context.Context, cfg *config.Config, res *kernel.Result) error {
	if r == nil || r.files == nil || res == nil || len(res.Images) == 0 {
		return nil
	}
	put := map[string][]byte{}
	for _, link := range res.Images {
		data, err := os.ReadFile(filepath.Join(cfg.ImagesDir(), filepath.Base(link)))
		if err != nil {
			return fmt.Errorf("copy image %s to the server: %w", link, err)
		}
		put[r.Path(link)] = data
	}
	if err := r.files.Put(ctx, put); err != nil {
		return fmt.Errorf("copy images to the server: %w", err)
	}
	return nil
}

// Mirror puts an offloaded result (rel to the workspace) on the server.
func (r *Workspace) Mirror(rel string, data []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := r.files.WriteFile(ctx, r.Path(rel), data)
	return err
}

// syncRoots are the local folders whose files go to the server: the
// generated tools (mcptools, gentools) and each skill's folder.
func syncRoots(cfg *config.Config) []string {
	roots := []string{config.GeneratedPath()}
	for _, s := range cfg.Skills {
		if rel, err := filepath.Rel(cfg.Dir, filepath.Dir(s.File)); err == nil && !strings.HasPrefix(rel, "..") {
			roots = append(roots, rel)
		}
	}
	return roots
}

// localFile is a file to put on the server.
type localFile struct {
	abs  string // on the user's machine
	rel  string // relative to the workspace, slash-separated
	info fs.FileInfo
}

// Sync puts the generated tools and skills on the server, when the local
// ones changed since the last time: new files, and changed ones, go there.
// The first time in a session it looks at what the server has: generated
// MCP modules and skills are replaced when they differ (they are made on
// the user's machine), saved tools (gentools) only when missing there,
// since code may have changed them on the server.
func (r *Workspace) Sync(ctx context.Context, cfg *config.Config) error {
	var list []localFile
	var stamp strings.Builder
	for _, root := range syncRoots(cfg) {
		err := filepath.WalkDir(filepath.Join(cfg.Dir, root), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.IsDir() && d.Name() == "__pycache__" {
				return filepath.SkipDir
			}
			if !d.Type().IsRegular() {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(cfg.Dir, p)
			list = append(list, localFile{abs: p, rel: filepath.ToSlash(rel), info: info})
			fmt.Fprintf(&stamp, "%s %d %d\n", rel, info.Size(), info.ModTime().UnixNano())
			return nil
		})
		if err != nil {
			return fmt.Errorf("put the Python tools and skills on the server: %w", err)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if stamp.String() == r.stamp {
		return nil
	}
	first := r.sent == nil
	if first {
		r.sent = map[string]string{}
		for _, root := range syncRoots(cfg) {
			there, err := r.files.Hashes(ctx, r.Path(root))
			if err != nil {
				return fmt.Errorf("list the Python tools and skills on the server: %w", err)
			}
			for rel, sum := range there {
				r.sent[path.Join(r.Path(root), rel)] = sum
			}
		}
	}
	put := map[string][]byte{}
	saved := filepath.ToSlash(filepath.Join(config.GeneratedPath(), config.GenToolsFolder)) + "/"
	for _, f := range list {
		data, err := os.ReadFile(f.abs)
		if err != nil {
			return fmt.Errorf("put %s on the server: %w", f.rel, err)
		}
		sum := sha256.Sum256(data)
		hash := hex.EncodeToString(sum[:])
		dst := r.Path(f.rel)
		there, known := r.sent[dst]
		switch {
		case there == hash:
			continue
		case first && known && strings.HasPrefix(f.rel, saved):
			// A saved tool that differs on the server: the server's is
			// kept (code may have changed it there) until the local one
			// changes.
			r.log.Info("saved tool differs on the server; keeping the server's", "file", f.rel)
			r.sent[dst] = hash
			continue
		}
		put[dst] = data
		r.sent[dst] = hash
	}
	if len(put) > 0 {
		if err := r.files.Put(ctx, put); err != nil {
			for p := range put {
				delete(r.sent, p)
			}
			return fmt.Errorf("put the Python tools and skills on the server: %w", err)
		}
	}
	r.stamp = stamp.String()
	return nil
}

// New is the workspace on srv, not yet opened.
func New(srv *kernel.Server, log *slog.Logger) *Workspace { return &Workspace{srv: srv, log: log} }

// Open sets up the workspace through k, the main kernel: the folder
// workdir on the server (made when missing; "" is the server's default),
// the kernel's working directory and import path. It returns the
// server's files there.
func (r *Workspace) Open(ctx context.Context, k *kernel.Kernel, workdir string) (*kernel.Files, error) {
	f, err := r.srv.OpenFiles(ctx, k, workdir)
	if err != nil {
		return nil, err
	}
	r.files = f
	if err := k.SetWorkspace(ctx, f.Root(), []string{r.Path(config.GeneratedPath())}); err != nil {
		return nil, fmt.Errorf("open the remote workspace %s: %w", f.Root(), err)
	}
	return f, nil
}

// Place is where code runs, for the system prompt; zero before Open.
func (r *Workspace) Place() config.Place {
	if r == nil || r.files == nil {
		return config.Place{}
	}
	return config.Place{Server: r.srv.URL(), WorkingDir: r.files.Root()}
}

// Root is the workspace's folder on the server; "" before Open.
func (r *Workspace) Root() string {
	if r.files == nil {
		return ""
	}
	return r.files.Root()
}
