package opener

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// types are the file extensions (lower case) a file may have to be handed
// to its default application: documents, data, notebooks, web pages,
// images, audio and video. Programs, scripts, launchers (.desktop),
// archives and files without an extension are not on it.
var types = map[string]bool{
	// documents and text
	".txt": true, ".md": true, ".markdown": true, ".rst": true, ".log": true,
	".pdf": true, ".html": true, ".htm": true, ".epub": true, ".rtf": true,
	".odt": true, ".ods": true, ".odp": true, ".docx": true, ".xlsx": true, ".pptx": true,
	".doc": true, ".xls": true, ".ppt": true,
	// data
	".csv": true, ".tsv": true, ".json": true, ".jsonl": true, ".xml": true,
	".yaml": true, ".yml": true, ".toml": true, ".ipynb": true,
	// images
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".svg": true,
	".bmp": true, ".tif": true, ".tiff": true,
	// audio and video
	".mp3": true, ".wav": true, ".ogg": true, ".flac": true, ".mp4": true, ".webm": true,
}

// ErrLink is wrapped by the error for a path with a symbolic link on the
// way from its root: links are not followed.
var ErrLink = errors.New("a symbolic link is on the way, and links are not followed")

// Roots are the folders files may be handed over from, absolute: the
// first is the workspace (relative paths are taken from it), the others
// are further folders (its images folder). Each root is trusted as it is
// (a link in the root's own path is followed); nothing below it is.
type Roots []string

// File returns the absolute path of path (relative to the first root, or
// absolute) when it may be handed to its default application: a regular
// file below a root, reached without a link, not executable, of one of
// the listed types.
func (r Roots) File(path string) (string, error) {
	abs, mode, err := r.locate(path)
	if err != nil {
		return "", err
	}
	ext := strings.ToLower(filepath.Ext(abs))
	switch {
	case !mode.IsRegular():
		return "", fmt.Errorf("%s is not a regular file", path)
	case !types[ext]:
		if ext == "" {
			return "", fmt.Errorf("%s has no file type (extension): only documents, data, images and media are opened; copy the path to open it yourself", path)
		}
		return "", fmt.Errorf("%s files are not opened from freeact (only documents, data, images and media): copy the path to open it yourself", ext)
	case mode.Perm()&0o111 != 0:
		return "", fmt.Errorf("%s is executable, so it is not opened from freeact: copy the path to open it yourself (or chmod -x it)", path)
	}
	return abs, nil
}

// Item returns the absolute path of path (as File takes it) when it may be
// shown in the file manager: a file or folder below a root, reached
// without a link.
func (r Roots) Item(path string) (string, error) {
	abs, mode, err := r.locate(path)
	if err != nil {
		return "", err
	}
	if !mode.IsRegular() && !mode.IsDir() {
		return "", fmt.Errorf("%s is neither a file nor a folder", path)
	}
	return abs, nil
}

// locate finds path below a root and returns its absolute path and its
// mode, reached from the root without following links.
func (r Roots) locate(path string) (string, fs.FileMode, error) {
	if len(r) == 0 {
		return "", 0, errors.New("no workspace is open")
	}
	if path == "" {
		return "", 0, errors.New("no file was given")
	}
	if strings.ContainsRune(path, 0) {
		return "", 0, fmt.Errorf("%q is not a valid path", path)
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(r[0], abs)
	}
	abs = filepath.Clean(abs)
	for _, root := range r {
		if root == "" || !filepath.IsAbs(root) {
			continue
		}
		root = filepath.Clean(root)
		rel, err := filepath.Rel(root, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			continue
		}
		mode, err := modeBelow(root, rel)
		if err != nil {
			if errors.Is(err, ErrLink) {
				return "", 0, fmt.Errorf("%s: %w: open it from its real place, or copy the path", path, err)
			}
			return "", 0, fmt.Errorf("%s: %w", path, err)
		}
		if !strings.HasPrefix(abs, "/") {
			return "", 0, fmt.Errorf("%s is not an absolute path", abs)
		}
		return abs, mode, nil
	}
	return "", 0, fmt.Errorf("%s is outside the workspace: only files in it are opened", path)
}
