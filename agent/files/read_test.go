package files

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/freeact/desktop/internal/testenv"
)

func numbered(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.Bytes()
}

// The text reader's output for typical and edge-case files, kept as golden
// files in testdata/read/.
func TestReadText(t *testing.T) {
	w := newWorkspace(t)
	put(t, w, "ten.txt", numbered(10))
	put(t, w, "many.txt", numbered(DefaultLineLimit+5))
	put(t, w, "empty.txt", nil)
	put(t, w, "no-final-newline.txt", []byte("first\nsecond"))
	put(t, w, "crlf-bom.txt", append(append([]byte{}, utf8BOM...), "one\r\ntwo\r\n\r\nfour\r\n"...))
	put(t, w, "lone-cr.txt", []byte("a\rb\n"))
	put(t, w, "latin1.txt", []byte("caf\xe9 au lait\n"))
	put(t, w, "long-line.txt", []byte("short\n"+strings.Repeat("é", MaxLineBytes)+"\nafter\n"))
	put(t, w, "long-crlf.txt", []byte(strings.Repeat("x", MaxLineBytes+10)+"\r\nnext\r\n"))
	wide := strings.Repeat("w", 1000) + "\n"
	put(t, w, "wide.txt", []byte(strings.Repeat(wide, 200)))
	put(t, w, "sub dir/ünïcode.md", []byte("# Title\n\nText.\n"))

	tests := []struct {
		name string
		args ReadTextArgs
	}{
		{"whole", ReadTextArgs{Path: "ten.txt"}},
		{"offset", ReadTextArgs{Path: "ten.txt", Offset: 8}},
		{"offset-limit", ReadTextArgs{Path: "ten.txt", Offset: 3, Limit: 2}},
		{"limit", ReadTextArgs{Path: "ten.txt", Limit: 4}},
		{"limit-exact", ReadTextArgs{Path: "ten.txt", Limit: 10}},
		{"last-line", ReadTextArgs{Path: "ten.txt", Offset: 10}},
		{"limit-past-end", ReadTextArgs{Path: "ten.txt", Offset: 9, Limit: 100}},
		{"default-limit", ReadTextArgs{Path: "many.txt", Offset: DefaultLineLimit - 2, Limit: 2}},
		{"empty", ReadTextArgs{Path: "empty.txt"}},
		{"no-final-newline", ReadTextArgs{Path: "no-final-newline.txt"}},
		{"crlf-bom", ReadTextArgs{Path: "crlf-bom.txt"}},
		{"lone-cr", ReadTextArgs{Path: "lone-cr.txt"}},
		{"latin1", ReadTextArgs{Path: "latin1.txt"}},
		{"long-line", ReadTextArgs{Path: "long-line.txt"}},
		{"long-crlf", ReadTextArgs{Path: "long-crlf.txt"}},
		{"unicode-path", ReadTextArgs{Path: "sub dir/ünïcode.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := w.ReadText(context.Background(), tt.args, false)
			if err != nil {
				t.Fatal(err)
			}
			testenv.Golden(t, filepath.Join("testdata", "read", tt.name+".golden"), []byte(got))
		})
	}

	t.Run("default limit", func(t *testing.T) {
		got, err := w.ReadText(context.Background(), ReadTextArgs{Path: "many.txt"}, false)
		if err != nil {
			t.Fatal(err)
		}
		want := string(numbered(DefaultLineLimit)) + fmt.Sprintf("\n[Showing lines 1-%d of many.txt. The file continues: read on with offset=%d.]", DefaultLineLimit, DefaultLineLimit+1)
		if got != want {
			t.Errorf("tail of output = %q", got[max(0, len(got)-200):])
		}
	})

	t.Run("byte cap", func(t *testing.T) {
		got, err := w.ReadText(context.Background(), ReadTextArgs{Path: "wide.txt"}, false)
		if err != nil {
			t.Fatal(err)
		}
		perLine := len(wide)
		shown := MaxReadBytes / perLine
		if n := strings.Count(got, wide); n != shown {
			t.Errorf("got %d full lines, want %d (the byte cap)", n, shown)
		}
		note := fmt.Sprintf("[Showing lines 1-%d of wide.txt (output is capped at 128 KiB). The file continues: read on with offset=%d.]", shown, shown+1)
		if !strings.HasSuffix(got, note) {
			t.Errorf("output does not end with %q: ...%q", note, got[len(got)-200:])
		}
		// Continuing where the note says gives the next line first.
		next, err := w.ReadText(context.Background(), ReadTextArgs{Path: "wide.txt", Offset: shown + 1, Limit: 1}, false)
		if err != nil || !strings.HasPrefix(next, wide) {
			t.Errorf("continuing at offset %d: %q, %v", shown+1, next[:min(len(next), 50)], err)
		}
	})
}

func TestReadTextErrors(t *testing.T) {
	w := newWorkspace(t)
	put(t, w, "ten.txt", numbered(10))
	put(t, w, "image.png", encodePNG(t, 4, 4))
	put(t, w, "nul.bin", []byte("text\x00more"))
	put(t, w, "utf16.txt", []byte{0xFF, 0xFE, 'h', 0, 'i', 0})
	put(t, w, "controls.bin", bytes.Repeat([]byte{1, 2, 3, 'a'}, 100))
	must(t, os.Mkdir(filepath.Join(w.Root(), "dir"), 0o755))

	tests := []struct {
		args ReadTextArgs
		want []string
	}{
		{ReadTextArgs{Path: "ten.txt", Offset: 11}, []string{"offset 11 is past the end of ten.txt, which has 10 lines"}},
		{ReadTextArgs{Path: "ten.txt", Offset: 500, Limit: 3}, []string{"offset 500", "10 lines"}},
		{ReadTextArgs{Path: "image.png"}, []string{"image.png is not a text file", "image/png", ReadMediaFile}},
		{ReadTextArgs{Path: "nul.bin"}, []string{"nul.bin is not a text file", "binary"}},
		{ReadTextArgs{Path: "utf16.txt"}, []string{"UTF-16"}},
		{ReadTextArgs{Path: "controls.bin"}, []string{"not a text file"}},
		{ReadTextArgs{Path: "dir"}, []string{"dir is a directory"}},
		{ReadTextArgs{Path: "missing.txt"}, []string{"missing.txt does not exist"}},
	}
	for _, tt := range tests {
		t.Run(tt.args.Path, func(t *testing.T) {
			got, err := w.ReadText(context.Background(), tt.args, false)
			if err == nil {
				t.Fatalf("no error; got %q", got)
			}
			for _, s := range tt.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
		})
	}
	if _, err := w.ReadText(context.Background(), ReadTextArgs{Path: "missing.txt"}, false); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: error %v does not wrap fs.ErrNotExist", err)
	}
	if _, err := w.ReadText(context.Background(), ReadTextArgs{Path: "/dev/null"}, true); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("device file: error = %v, want 'not a regular file'", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.ReadText(ctx, ReadTextArgs{Path: "ten.txt"}, false); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: error = %v", err)
	}
}

// Reading a window of a big file, or a file that is one enormous line, keeps
// memory use small: the reader streams instead of loading the file.
func TestReadTextBigFilesStream(t *testing.T) {
	w := newWorkspace(t)
	const size = 64 << 20
	f, err := os.Create(filepath.Join(w.Root(), "one-line.txt"))
	must(t, err)
	chunk := bytes.Repeat([]byte("abcdefgh"), 8192)
	for written := 0; written < size; written += len(chunk) {
		_, err := f.Write(chunk)
		must(t, err)
	}
	must(t, f.Close())

	f, err = os.Create(filepath.Join(w.Root(), "many-lines.txt"))
	must(t, err)
	lines := numbered(100_000) // ~1.2 MB
	for written := 0; written < size; written += len(lines) {
		_, err := f.Write(lines)
		must(t, err)
	}
	must(t, f.Close())

	tests := []struct {
		args ReadTextArgs
		want string
	}{
		{ReadTextArgs{Path: "one-line.txt"}, fmt.Sprintf("… [line cut: %d more bytes]", size-MaxLineBytes)},
		{ReadTextArgs{Path: "many-lines.txt", Offset: 2_500_001, Limit: 3}, "line 1\nline 2\nline 3\n\n[Showing lines 2500001-2500003 of many-lines.txt. The file continues: read on with offset=2500004.]"},
	}
	for _, tt := range tests {
		t.Run(tt.args.Path, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			got, err := w.ReadText(context.Background(), tt.args, false)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("output %q does not contain %q", got[max(0, len(got)-300):], tt.want)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
				t.Errorf("reading allocated %d MiB for a %d MiB file; it should stream", alloc>>20, size>>20)
			}
		})
	}
}

func BenchmarkReadText(b *testing.B) {
	w, err := NewWorkspace(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(w.Root(), "src.go"), numbered(DefaultLineLimit), 0o644))
	must(os.WriteFile(filepath.Join(w.Root(), "big.txt"), bytes.Repeat(numbered(100_000), 10), 0o644))
	b.Run("2000-lines", func(b *testing.B) {
		for b.Loop() {
			if _, err := w.ReadText(context.Background(), ReadTextArgs{Path: "src.go"}, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("skip-1M-lines", func(b *testing.B) {
		for b.Loop() {
			if _, err := w.ReadText(context.Background(), ReadTextArgs{Path: "big.txt", Offset: 999_990}, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// FuzzReadLine reads arbitrary content line by line through a tiny buffer,
// so lines and CRLFs straddle buffer refills, and checks that the kept lines
// put back together give the content with CRLF as LF, that cut lines keep a
// rune-aligned prefix and count what they drop, and that skipping counts the
// same lines.
func FuzzReadLine(f *testing.F) {
	f.Add([]byte("a\r\nb\nc"), 3)
	f.Add([]byte("0123456789abcde\r\n0123456789abcdef\r\n"), 5)
	f.Add([]byte("\r\r\n\n\r"), 1)
	f.Add(append(bytes.Repeat([]byte("é"), MaxLineBytes), "\r\nx"...), 4)
	f.Fuzz(func(t *testing.T, content []byte, size int) {
		newReader := func() *bufio.Reader { return bufio.NewReaderSize(bytes.NewReader(content), 16+size%64) }
		var rebuilt []byte
		r := newReader()
		lines := 0
		for {
			line, cut, ok, err := readLine(r, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			lines++
			body := bytes.TrimSuffix(line, []byte("\n"))
			if len(body) > MaxLineBytes || cut > 0 && len(body) < MaxLineBytes-utf8.UTFMax {
				t.Fatalf("line of %d bytes with %d cut", len(body), cut)
			}
			rebuilt = append(rebuilt, body...)
			rebuilt = append(rebuilt, make([]byte, cut)...) // placeholders, compared by length below
			if len(line) > len(body) {
				rebuilt = append(rebuilt, '\n')
			}
		}
		want := bytes.ReplaceAll(content, []byte("\r\n"), []byte("\n"))
		if len(rebuilt) != len(want) {
			t.Fatalf("rebuilt %d bytes, want %d", len(rebuilt), len(want))
		}
		for i := range want {
			if rebuilt[i] != want[i] && rebuilt[i] != 0 {
				t.Fatalf("byte %d: %q, want %q", i, rebuilt[i], want[i])
			}
		}
		r = newReader()
		skipped := 0
		for {
			_, _, ok, err := readLine(r, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			skipped++
		}
		if skipped != lines {
			t.Fatalf("skipping counted %d lines, reading %d", skipped, lines)
		}
	})
}
