package desktop

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // CopyImage checks GIFs
	_ "image/jpeg"
	_ "image/png"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/freeact/desktop/agent/files"
	"github.com/freeact/desktop/agent/session"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/internal/atomicfile"
	"github.com/freeact/desktop/internal/opener"
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

// SaveImage asks where to save an image the conversation shows (src: a
// path ImageData accepts, or the data URL of an attached image) and
// writes a copy there. It returns the path written, "" when the dialog was
// cancelled.
func (d *Desktop) SaveImage(src string) (string, error) {
	name, data, err := d.imageBytes(src)
	if err != nil {
		return "", err
	}
	return d.saveAs("Save the image", d.workspaceDir(), name, data, "save image")
}

// saveAs asks where to save data, in a dialog titled title that opens in
// dir and suggests name, and writes it there. It returns the path written,
// "" when the dialog was cancelled; what names the write in its error.
func (d *Desktop) saveAs(title, dir, name string, data []byte, what string) (string, error) {
	p, err := d.host.saveFile(title, dir, name)
	if err != nil {
		return "", fmt.Errorf("save dialog: %w", err)
	}
	if p == "" {
		return "", nil
	}
	if err := atomicfile.Write(p, data, 0o644); err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	return p, nil
}

// CopyImage puts an image the conversation shows (as SaveImage takes it)
// on the clipboard, for pasting into other programs.
func (d *Desktop) CopyImage(src string) error {
	name, data, err := d.imageBytes(src)
	if err != nil {
		return err
	}
	if _, _, err := image.DecodeConfig(bytes.NewReader(data)); err != nil {
		return fmt.Errorf("%s cannot be copied: %w", name, err)
	}
	return d.host.copyImage(data)
}

// ClipboardImage returns the image on the clipboard (copied in another
// program) as a PNG data URL, "" when it holds none: the prompt box
// attaches it on paste.
func (d *Desktop) ClipboardImage() (string, error) {
	data, err := d.host.pasteImage()
	if err != nil {
		return "", fmt.Errorf("read the clipboard: %w", err)
	}
	if len(data) == 0 {
		return "", nil
	}
	if len(data) > maxAttachmentBytes {
		return "", fmt.Errorf("the image on the clipboard is larger than %d MB", maxAttachmentBytes>>20)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(data), nil
}

// imageBytes returns a file name and the bytes of an image the window
// shows.
func (d *Desktop) imageBytes(src string) (string, []byte, error) {
	if strings.HasPrefix(src, "data:") {
		head, b64, ok := strings.Cut(src, ";base64,")
		mt := strings.TrimPrefix(head, "data:")
		ext := map[string]string{"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}[mt]
		if !ok || ext == "" {
			return "", nil, errors.New("not an image data URL")
		}
		data, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return "", nil, fmt.Errorf("image data: %w", err)
		}
		return "image" + ext, data, nil
	}
	url, err := d.ImageData(src)
	if err != nil {
		return "", nil, err
	}
	_, b64, _ := strings.Cut(url, ";base64,")
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return "", nil, fmt.Errorf("image %s: %w", src, err)
	}
	return filepath.Base(src), data, nil
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

// OpenFile opens a file inside the workspace or its images folder (an
// offloaded tool result, an image from code) with the system's default
// application, through internal/opener: a file of a listed type reached
// without a symbolic link, handed over as its absolute path. An opener
// that cannot open it is reported, with what to do instead.
func (d *Desktop) OpenFile(path string) error {
	roots, err := d.openRoots()
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	return opener.Opener{}.OpenFile(d.host.context(), roots, path)
}

// ShowInFolder shows a file inside the workspace or its images folder in
// the file manager: selected in its folder where a file manager answers
// on the session bus, else its folder opened with the system's opener.
// With neither it says so, and what to do instead.
func (d *Desktop) ShowInFolder(path string) error {
	roots, err := d.openRoots()
	if err != nil {
		return fmt.Errorf("show %s in its folder: %w", path, err)
	}
	return opener.Opener{}.ShowInFolder(d.host.context(), roots, path)
}

// OpenLink opens a link of the window (a link in an answer, a remote
// image) in the user's browser, through internal/opener: only https, and
// http to this computer; anything else is refused, saying why.
func (d *Desktop) OpenLink(url string) error {
	_, err := opener.Opener{}.OpenURL(d.host.context(), url)
	return err
}

// openRoots are the folders files are opened from: the workspace, then
// its images folder.
func (d *Desktop) openRoots() (opener.Roots, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	return opener.Roots{ws.dir, ws.cfg.ImagesDir()}, nil
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
	list, err := session.List(ws.cfg.SessionsDir(), adapter.SessionTitle)
	return skipUnreadable(d.log, list, err, "list sessions")
}

// skipUnreadable returns what a pass over the saved sessions found, never
// nil. Its error, about sessions it could not read, fails the call when
// nothing was found; otherwise it is logged and the rest is shown.
func skipUnreadable[T any](log *slog.Logger, found []T, err error, what string) ([]T, error) {
	if found == nil {
		found = []T{}
	}
	if err != nil && len(found) == 0 {
		return found, fmt.Errorf("%s: %w", what, err)
	}
	if err != nil {
		log.Warn(what+": some sessions could not be read", "err", err)
	}
	return found, nil
}

// workspaceDir is where file dialogs open: the workspace, if one is open.
func (d *Desktop) workspaceDir() string {
	if ws, err := d.current(); err == nil {
		return ws.dir
	}
	return ""
}

// previewSide is the longest side of an attachment's thumbnail.
const previewSide = 160

// AttachmentInfo is a file offered as an attachment (dropped on the window
// or picked in the file chooser), checked before it is attached.
type AttachmentInfo struct {
	Path string `json:"path"`
	Name string `json:"name"`
	// Preview is a thumbnail (a data URL) of an image that can be attached.
	Preview string `json:"preview"`
	// Problem says why the file cannot be attached; "" when it can.
	Problem string `json:"problem"`
	// Relative is the path from the workspace for a file inside it (for
	// an @path reference to a file that is not an image); "" outside.
	Relative string `json:"relative"`
}

// CheckAttachments reads each file and says whether it is an image the
// model can take (PNG, JPEG, GIF or WebP, decoded to be sure), with a
// thumbnail, or why not.
func (d *Desktop) CheckAttachments(paths []string) ([]AttachmentInfo, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	out := make([]AttachmentInfo, 0, len(paths))
	for _, p := range paths {
		abs := ws.abs(adapter.ExpandHome(p))
		info := AttachmentInfo{Path: abs, Name: filepath.Base(abs)}
		if within(ws.dir, abs) && abs != ws.dir {
			rel, _ := filepath.Rel(ws.dir, abs)
			info.Relative = filepath.ToSlash(rel)
		}
		info.Preview, info.Problem = preview(abs)
		out = append(out, info)
	}
	return out, nil
}

// preview makes the thumbnail of an image file, or says why it is not
// one that can be attached.
func preview(p string) (string, string) {
	st, err := os.Stat(p)
	switch {
	case err != nil:
		return "", fmt.Sprintf("%s cannot be read: %v", filepath.Base(p), err)
	case st.IsDir():
		return "", fmt.Sprintf("%s is a folder: only image files can be attached", filepath.Base(p))
	case st.Size() > maxAttachmentBytes:
		return "", fmt.Sprintf("%s is larger than %d MB", filepath.Base(p), maxAttachmentBytes>>20)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Sprintf("%s cannot be read: %v", filepath.Base(p), err)
	}
	im, err := files.FitImage(data, previewSide)
	if err != nil {
		return "", fmt.Sprintf("%s is not an image: only PNG, JPEG, GIF and WebP images can be attached", filepath.Base(p))
	}
	return "data:" + im.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(im.Data), ""
}

// PickImages opens the native file chooser for images (several at once),
// in the workspace; it returns the chosen paths, none when it was
// cancelled.
func (d *Desktop) PickImages() ([]string, error) {
	ps, err := d.host.pickFiles("Attach images", d.workspaceDir(), []runtime.FileFilter{
		{DisplayName: "Images (PNG, JPEG, GIF, WebP)", Pattern: "*.png;*.jpg;*.jpeg;*.gif;*.webp;*.PNG;*.JPG;*.JPEG;*.GIF;*.WEBP"},
		{DisplayName: "All files", Pattern: "*"},
	})
	if err != nil {
		return nil, fmt.Errorf("file chooser: %w", err)
	}
	if ps == nil {
		ps = []string{}
	}
	return ps, nil
}
