package app

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/freeact/desktop/agent/session"
)

// imageTypes are the image files the window shows inline.
var imageTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".gif": "image/gif", ".webp": "image/webp", ".svg": "image/svg+xml",
}

// maxInlineImage bounds an image the window loads.
const maxInlineImage = 20 << 20

// within reports whether p is inside dir (or dir itself).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// ImageData returns an image inside the workspace (or its images folder) as
// a data URL, for inline display. Other paths and other file types are
// refused, so the window cannot read arbitrary files.
func (d *Desktop) ImageData(path string) (string, error) {
	ws, err := d.current()
	if err != nil {
		return "", err
	}
	p := ws.abs(path)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	if !within(ws.dir, p) && !within(ws.cfg.ImagesDir(), p) {
		return "", fmt.Errorf("image %s is outside the workspace", path)
	}
	mt, ok := imageTypes[strings.ToLower(filepath.Ext(p))]
	if !ok {
		return "", fmt.Errorf("%s is not an image file", path)
	}
	st, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("image %s: %w", path, err)
	}
	if st.Size() > maxInlineImage {
		return "", fmt.Errorf("image %s is too large to show (%d MB)", path, st.Size()>>20)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("image %s: %w", path, err)
	}
	return "data:" + mt + ";base64," + base64.StdEncoding.EncodeToString(data), nil
}

// OpenFile opens a file inside the workspace (such as an offloaded tool
// result) with the system's default application.
func (d *Desktop) OpenFile(path string) error {
	ws, err := d.current()
	if err != nil {
		return err
	}
	p := ws.abs(path)
	if !within(ws.dir, p) {
		return fmt.Errorf("%s is outside the workspace", path)
	}
	if _, err := os.Stat(p); err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	d.host.openURL((&url.URL{Scheme: "file", Path: p}).String())
	return nil
}

// PathEntry is one completion of an @path reference.
type PathEntry struct {
	Path  string `json:"path"` // workspace-relative, "/" separated; folders end in "/"
	Dir   bool   `json:"dir"`
	Image bool   `json:"image"`
}

// maxCompletions bounds the @path completion list.
const maxCompletions = 50

// CompletePath lists workspace entries whose path starts with prefix (the
// text after "@"), for the prompt box's completion. Hidden entries are left
// out unless the prefix names them.
func (d *Desktop) CompletePath(prefix string) ([]PathEntry, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	return completePath(ws.dir, prefix)
}

func completePath(root, prefix string) ([]PathEntry, error) {
	dirPart, base := "", prefix
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		dirPart, base = prefix[:i+1], prefix[i+1:]
	}
	dir := filepath.Join(root, filepath.FromSlash(dirPart))
	if !within(root, dir) {
		return []PathEntry{}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return []PathEntry{}, nil
	}
	out := []PathEntry{}
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(strings.ToLower(n), strings.ToLower(base)) {
			continue
		}
		if strings.HasPrefix(n, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&os.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(dir, n)); err == nil {
				isDir = st.IsDir()
			}
		}
		p := dirPart + n
		if isDir {
			p += "/"
		}
		_, img := imageTypes[strings.ToLower(filepath.Ext(n))]
		out = append(out, PathEntry{Path: p, Dir: isDir, Image: img && !isDir})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Dir != out[j].Dir {
			return out[i].Dir
		}
		return out[i].Path < out[j].Path
	})
	if len(out) > maxCompletions {
		out = out[:maxCompletions]
	}
	return out, nil
}

// ImagesIn lists the attachable images directly inside a workspace folder
// (an "@dir/" reference).
func (d *Desktop) ImagesIn(dir string) ([]string, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	p := ws.abs(dir)
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil, fmt.Errorf("folder %s: %w", dir, err)
	}
	out := []string{}
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if !e.IsDir() && ext != ".svg" && imageTypes[ext] != "" {
			out = append(out, filepath.Join(p, e.Name()))
		}
	}
	return out, nil
}

// SessionInfo is one entry of the session list.
type SessionInfo = session.Info

// Sessions lists the workspace's saved sessions, most recent first.
func (d *Desktop) Sessions() ([]SessionInfo, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	list, err := session.List(ws.cfg.SessionsDir(), sessionTitle)
	if list == nil {
		list = []session.Info{}
	}
	if err != nil && len(list) == 0 {
		return list, fmt.Errorf("list sessions: %w", err)
	}
	if err != nil {
		d.log.Warn("some sessions could not be read", "err", err)
	}
	return list, nil
}
