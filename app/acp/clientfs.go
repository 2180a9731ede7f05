package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/files"
)

// clientFS puts the file tools on the client's files where the client
// offers them (fs.readTextFile, fs.writeTextFile): a read sees the
// editor's unsaved buffer, a write goes through the editor. Paths are
// resolved and checked on the local disk first, as for every workspace
// (no link followed, the workspace's rules); images and PDFs, which are
// not text, are read from the disk.
type clientFS struct {
	files.Backend // the local disk: Home, Resolve, Lstat, and the rest
	ss            *acpSession
	read, write   bool
}

// fileBackend is the agent option's wrap for the client's capabilities;
// nil when the client offers neither.
func (ss *acpSession) fileBackend(c sdk.FileSystemCapabilities) func(files.Backend) files.Backend {
	if !c.ReadTextFile && !c.WriteTextFile {
		return nil
	}
	return func(local files.Backend) files.Backend {
		return &clientFS{Backend: local, ss: ss, read: c.ReadTextFile, write: c.WriteTextFile}
	}
}

// media reports a file read as an image or document, not as text.
func media(abs string) bool {
	t := mime.TypeByExtension(strings.ToLower(filepath.Ext(abs)))
	return strings.HasPrefix(t, "image/") || t == "application/pdf"
}

// resolved refuses a path whose resolution is not itself: a link on the
// way, which the client would follow.
func (c *clientFS) resolved(ctx context.Context, abs string) error {
	real, err := c.Backend.Resolve(ctx, abs)
	if err != nil {
		return err
	}
	if real != abs {
		return fmt.Errorf("%s: a symbolic link is on the way (to %s); the file is not handed to the editor", abs, real)
	}
	return nil
}

func (c *clientFS) Open(ctx context.Context, abs string) (io.ReadCloser, error) {
	if !c.read || media(abs) {
		return c.Backend.Open(ctx, abs)
	}
	if err := c.resolved(ctx, abs); err != nil {
		return nil, err
	}
	// The disk says what is there (a folder, another kind of file, none);
	// the editor says what its buffer holds.
	if mode, err := c.Backend.Lstat(ctx, abs); err != nil {
		return nil, err
	} else if !mode.IsRegular() {
		return c.Backend.Open(ctx, abs) // the local disk's error for it
	}
	resp, err := c.ss.srv.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(c.ss.id), Path: abs})
	if err != nil {
		return nil, fmt.Errorf("read %s through the editor: %w", abs, err)
	}
	return io.NopCloser(strings.NewReader(resp.Content)), nil
}

func (c *clientFS) WriteFile(ctx context.Context, abs string, data []byte) (bool, error) {
	// The protocol takes no empty content: an empty file is written on
	// the disk.
	if !c.write || len(data) == 0 {
		return c.Backend.WriteFile(ctx, abs, data)
	}
	if err := c.resolved(ctx, abs); err != nil {
		return false, err
	}
	mode, err := c.Backend.Lstat(ctx, abs)
	created := err != nil
	switch {
	case err != nil && !isNotExist(err):
		return false, err
	case err == nil && !mode.IsRegular():
		return c.Backend.WriteFile(ctx, abs, data) // the local disk's refusal
	}
	if _, err := c.ss.srv.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sdk.SessionId(c.ss.id), Path: abs, Content: string(data)}); err != nil {
		return false, fmt.Errorf("write %s through the editor: %w", abs, err)
	}
	return created, nil
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// agentOptions are the options of the session's agent: its approval mode
// and the client's files.
func (ss *acpSession) agentOptions() []agent.Option {
	opts := []agent.Option{agent.WithApprovalMode(defaultMode)}
	ss.srv.mu.Lock()
	c := ss.srv.client.Fs
	ss.srv.mu.Unlock()
	if wrap := ss.fileBackend(c); wrap != nil {
		opts = append(opts, agent.WithFileBackend(wrap))
	}
	return opts
}
