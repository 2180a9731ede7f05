package session

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// Offloader saves tool results larger than MaxInlineBytes to files in Dir
// and gives the model a notice in their place.
type Offloader struct {
	Dir            string // where results go, normally Store.ResultsDir()
	Workspace      string // notices name files relative to it
	MaxInlineBytes int    // results above this size are offloaded (tool_result_inline_max_bytes)
	PreviewChars   int    // characters of preview, split between head and tail (tool_result_preview_chars)
	// Mirror, if set, puts a copy of each saved result where the model's
	// code reads it (a remote workspace), by its path relative to
	// Workspace. When it fails the result stays inline.
	Mirror func(rel string, data []byte) error
}

// Text offloads a text result to a .txt file when it is larger than the
// threshold. It returns the notice and the file's path relative to the
// workspace (forward slashes), or s and "" when s fits or saving failed
// (the result then stays inline).
func (o Offloader) Text(s string) (string, string) {
	if len(s) <= o.MaxInlineBytes {
		return s, ""
	}
	rel, err := save(o, s, ".txt") // as a string: a big output is not copied
	if err != nil {
		return s, ""
	}
	return o.notice(len(s), rel, s), rel
}

// JSON offloads a structured result as JSON with sorted keys when its
// encoding is larger than the threshold. It returns the notice and true,
// or "" and false when the caller should keep v inline.
func (o Offloader) JSON(v any) (string, bool) {
	data, err := sortedJSON(v)
	if err != nil || len(data) <= o.MaxInlineBytes {
		return "", false
	}
	rel, err := save(o, data, ".json")
	if err != nil {
		return "", false
	}
	return o.notice(len(data), rel, string(data)), true
}

// Binary offloads binary content of the given MIME type, saved with that
// type's extension, when it is larger than the threshold. It returns the
// notice and true, or "" and false when the caller should keep it inline.
func (o Offloader) Binary(data []byte, mimeType string) (string, bool) {
	if len(data) <= o.MaxInlineBytes {
		return "", false
	}
	rel, err := save(o, data, Extension(mimeType))
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("The tool result (%s, %d bytes) is larger than the inline limit of %d bytes and was saved to %s.",
		mimeType, len(data), o.MaxInlineBytes, rel), true
}

// notice tells the model the sizes, where the full result is, and shows a
// head and tail preview.
func (o Offloader) notice(size int, rel, text string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The tool result is %d bytes, larger than the inline limit of %d bytes. "+
		"The full result was saved to %s; read that file when you need more than the preview.\n",
		size, o.MaxInlineBytes, rel)
	total := utf8.RuneCountInString(text)
	if o.PreviewChars <= 0 {
		return strings.TrimSuffix(b.String(), "\n")
	}
	if total <= o.PreviewChars {
		fmt.Fprintf(&b, "\nPreview (all %d characters):\n%s", total, text)
		return b.String()
	}
	headN := o.PreviewChars / 2
	tailN := o.PreviewChars - headN
	head := firstRunes(text, headN)
	tail := lastRunes(text, tailN)
	omitted := total - headN - tailN
	fmt.Fprintf(&b, "\nPreview (first %d and last %d of %d characters):\n%s\n[... %d characters omitted ...]\n%s",
		headN, tailN, total, head, omitted, tail)
	return b.String()
}

func firstRunes(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return s[:i]
}

func lastRunes(s string, n int) string {
	i := len(s)
	for k := 0; k < n && i > 0; k++ {
		_, w := utf8.DecodeLastRuneInString(s[:i])
		i -= w
	}
	return s[i:]
}

// save writes data to a new file <8 hex><ext> in o.Dir and returns its path
// relative to the workspace (forward slashes).
func save[T string | []byte](o Offloader, data T, ext string) (string, error) {
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return "", err
	}
	for range 8 {
		var id [4]byte
		_, _ = rand.Read(id[:])
		name := filepath.Join(o.Dir, hex.EncodeToString(id[:])+ext)
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		var werr error
		switch d := any(data).(type) {
		case string:
			_, werr = f.WriteString(d)
		case []byte:
			_, werr = f.Write(d)
		}
		cerr := f.Close()
		if err := errors.Join(werr, cerr); err != nil {
			os.Remove(name)
			return "", err
		}
		rel := filepath.ToSlash(name)
		if r, err := filepath.Rel(o.Workspace, name); err == nil && !strings.HasPrefix(r, "..") {
			rel = filepath.ToSlash(r)
		}
		if o.Mirror != nil {
			if err := o.Mirror(rel, []byte(data)); err != nil {
				os.Remove(name)
				return "", err
			}
		}
		return rel, nil
	}
	return "", errors.New("no free file name for the tool result")
}

// sortedJSON encodes v with object keys sorted at every level.
func sortedJSON(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	// Decoding into any turns objects into maps, which encoding/json writes
	// with sorted keys; UseNumber keeps numbers exactly as they were.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	return json.MarshalIndent(generic, "", "  ")
}

// knownExtensions fixes the extension of common types, independent of the
// system's MIME tables.
var knownExtensions = map[string]string{
	"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp",
	"image/svg+xml": ".svg", "image/bmp": ".bmp", "image/tiff": ".tiff",
	"application/pdf": ".pdf", "application/zip": ".zip", "application/gzip": ".gz",
	"application/json": ".json", "application/octet-stream": ".bin",
	"audio/mpeg": ".mp3", "audio/wav": ".wav", "audio/ogg": ".ogg", "video/mp4": ".mp4",
	"text/plain": ".txt", "text/html": ".html", "text/csv": ".csv", "text/markdown": ".md",
}

// Extension returns the file extension for a MIME type: a fixed one for
// common types, else the system's first (sorted) one, else ".bin".
func Extension(mimeType string) string {
	base, _, err := mime.ParseMediaType(mimeType)
	if err != nil {
		return ".bin"
	}
	if ext, ok := knownExtensions[base]; ok {
		return ext
	}
	if exts, err := mime.ExtensionsByType(base); err == nil && len(exts) > 0 {
		slices.Sort(exts)
		return exts[0]
	}
	return ".bin"
}
