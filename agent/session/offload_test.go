package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func newOffloader(t *testing.T, max, preview int) (Offloader, string) {
	t.Helper()
	ws := t.TempDir()
	s := openStore(t, filepath.Join(ws, ".freeact", "sessions"), "sess")
	return Offloader{Dir: s.ResultsDir(), Workspace: ws, MaxInlineBytes: max, PreviewChars: preview}, ws
}

var savedPath = regexp.MustCompile(`\.freeact/sessions/sess/tool-results/[0-9a-f]{8}\.[a-z]+`)

func TestOffloadText(t *testing.T) {
	o, ws := newOffloader(t, 100, 20)
	small := strings.Repeat("x", 100)
	if got, off := o.Text(small); off != "" || got != small {
		t.Fatalf("a result at the threshold was offloaded: %q", got)
	}
	big := "HEAD-" + strings.Repeat("m", 200) + "-TAIL"
	notice, off := o.Text(big)
	if off == "" {
		t.Fatal("a result over the threshold stayed inline")
	}
	rel := savedPath.FindString(notice)
	if rel == "" || !strings.HasSuffix(rel, ".txt") {
		t.Fatalf("notice names no .txt file under tool-results: %s", notice)
	}
	if off != rel {
		t.Errorf("Text returned the file %q, the notice names %q", off, rel)
	}
	saved, err := os.ReadFile(filepath.Join(ws, rel))
	if err != nil || string(saved) != big {
		t.Fatalf("saved file holds %q, %v", saved, err)
	}
	for _, want := range []string{
		"210 bytes",                 // the actual size
		"inline limit of 100 bytes", // the threshold
		"first 10 and last 10 of 210 characters",
		"HEAD-mmmmm", "mmmmm-TAIL", // head and tail
		"[... 190 characters omitted ...]",
	} {
		if !strings.Contains(notice, want) {
			t.Errorf("notice lacks %q:\n%s", want, notice)
		}
	}
}

func TestOffloadPreviewCountsCharacters(t *testing.T) {
	o, _ := newOffloader(t, 10, 4)
	notice, off := o.Text("äöüßéèêë") // 8 characters, 16 bytes
	if off == "" {
		t.Fatal("not offloaded")
	}
	if !strings.Contains(notice, "16 bytes") || !strings.Contains(notice, "äö\n[... 4 characters omitted ...]\nêë") {
		t.Fatalf("notice:\n%s", notice)
	}
	o.PreviewChars = 100
	notice, _ = o.Text("äöüßéèêë")
	if !strings.Contains(notice, "Preview (all 8 characters):\näöüßéèêë") {
		t.Fatalf("short text preview:\n%s", notice)
	}
}

func TestOffloadJSONSorted(t *testing.T) {
	o, ws := newOffloader(t, 30, 2048)
	v := map[string]any{"zeta": 1, "alpha": []any{map[string]any{"y": 2, "b": 3}}, "mid": 12345678901234567890.0}
	if _, off := o.JSON(map[string]int{"a": 1}); off {
		t.Fatal("a small JSON result was offloaded")
	}
	notice, off := o.JSON(v)
	if !off {
		t.Fatal("a large JSON result stayed inline")
	}
	rel := savedPath.FindString(notice)
	if !strings.HasSuffix(rel, ".json") {
		t.Fatalf("notice names %q, want a .json file", rel)
	}
	data, err := os.ReadFile(filepath.Join(ws, rel))
	if err != nil {
		t.Fatal(err)
	}
	if a, m, z := strings.Index(string(data), `"alpha"`), strings.Index(string(data), `"mid"`), strings.Index(string(data), `"zeta"`); !(a < m && m < z) {
		t.Fatalf("keys not sorted:\n%s", data)
	}
	if b, y := strings.Index(string(data), `"b"`), strings.Index(string(data), `"y"`); b > y {
		t.Fatalf("nested keys not sorted:\n%s", data)
	}
	var back map[string]any
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("saved JSON does not parse: %v", err)
	}
}

func TestOffloadBinary(t *testing.T) {
	o, ws := newOffloader(t, 8, 2048)
	png := []byte("\x89PNG\r\n\x1a\nrest-of-image")
	if _, off := o.Binary(png[:8], "image/png"); off {
		t.Fatal("small binary offloaded")
	}
	notice, off := o.Binary(png, "image/png")
	rel := savedPath.FindString(notice)
	if !off || !strings.HasSuffix(rel, ".png") || !strings.Contains(notice, "image/png, 21 bytes") {
		t.Fatalf("notice: %s", notice)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, rel)); string(data) != string(png) {
		t.Fatal("saved binary differs")
	}
}

func TestExtension(t *testing.T) {
	for mimeType, want := range map[string]string{
		"image/png": ".png", "image/jpeg": ".jpg", "image/svg+xml": ".svg", "application/pdf": ".pdf",
		"text/plain; charset=utf-8": ".txt", "application/x-unknown-thing": ".bin", "not a type": ".bin",
	} {
		if got := Extension(mimeType); got != want {
			t.Errorf("Extension(%q) = %q, want %q", mimeType, got, want)
		}
	}
}

func TestOffloadFailureStaysInline(t *testing.T) {
	ws := t.TempDir()
	blocker := filepath.Join(ws, "not-a-dir")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	o := Offloader{Dir: filepath.Join(blocker, "tool-results"), Workspace: ws, MaxInlineBytes: 4, PreviewChars: 10}
	big := "a large result"
	if got, off := o.Text(big); off != "" || got != big {
		t.Fatalf("failed save: %q, %v", got, off)
	}
	if _, off := o.JSON([]int{1, 2, 3, 4, 5}); off {
		t.Fatal("failed JSON save reported as offloaded")
	}
	if _, off := o.Binary([]byte("0123456789"), "image/png"); off {
		t.Fatal("failed binary save reported as offloaded")
	}
}

// Mirror gets each saved result by its workspace-relative path; when it
// fails, the result stays inline and no local file is left.
func TestOffloadMirror(t *testing.T) {
	o, ws := newOffloader(t, 4, 0)
	mirrored := map[string]string{}
	o.Mirror = func(rel string, data []byte) error {
		mirrored[rel] = string(data)
		return nil
	}
	got, off := o.Text("a large result")
	rel := savedPath.FindString(got)
	if off != rel || rel == "" || mirrored[rel] != "a large result" {
		t.Fatalf("notice %q, mirrored %v", got, mirrored)
	}
	o.Mirror = func(string, []byte) error { return os.ErrPermission }
	if got, off := o.Text("another large result"); off != "" || got != "another large result" {
		t.Fatalf("failed mirror: %q, %v", got, off)
	}
	files, _ := filepath.Glob(filepath.Join(ws, ".freeact", "sessions", "sess", "tool-results", "*"))
	if len(files) != 1 {
		t.Errorf("files %v, want only the mirrored one", files)
	}
}
