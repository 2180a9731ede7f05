package files

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

const bom = "\ufeff"

func TestEditText(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		old, new string
		want     string // the new content
		line     int
	}{
		{"simple", "a\nb\nc\n", "b", "B", "a\nB\nc\n", 2},
		{"multi-line", "func f() {\n\treturn 1\n}\n", "\treturn 1\n}", "\treturn 2\n}", "func f() {\n\treturn 2\n}\n", 2},
		{"delete", "keep\ndrop\nkeep2\n", "drop\n", "", "keep\nkeep2\n", 2},
		{"at start", "first\nsecond\n", "first", "1st", "1st\nsecond\n", 1},
		{"at end without newline", "x\ny", "y", "why", "x\nwhy", 2},
		{"grow lines", "a\nb\n", "a\n", "a\nnew 1\nnew 2\n", "a\nnew 1\nnew 2\nb\n", 1},
		{"crlf file, lf text", "one\r\ntwo\r\nthree\r\n", "two\nthree", "2\n3\n3.5", "one\r\n2\r\n3\r\n3.5\r\n", 2},
		{"crlf file, crlf text", "one\r\ntwo\r\n", "one\r\ntwo", "1\r\n2", "1\r\n2\r\n", 1},
		{"crlf file, match in a line", "alpha beta\r\ngamma\r\n", "beta", "b\neta", "alpha b\r\neta\r\ngamma\r\n", 1},
		{"crlf file, match starting at newline", "a\r\nb\r\n", "\nb", "\nB", "a\r\nB\r\n", 1},
		{"bom kept", bom + "x = 1\n", "x = 1", "x = 2", bom + "x = 2\n", 1},
		{"bom and crlf kept", bom + "x = 1\r\ny = 2\r\n", "x = 1\ny", "x = 10\ny", bom + "x = 10\r\ny = 2\r\n", 1},
		{"no bom added", "x\n", "x", "y", "y\n", 1},
		{"mixed endings: lf region stays lf", "a\r\nb\nc\r\n", "b\n", "B\nB2\n", "a\r\nB\nB2\nc\r\n", 2},
		{"mixed endings: untouched lines kept", "a\r\nb\nc\n", "c", "C\nD", "a\r\nb\nC\nD\n", 3},
		{"lone cr is not a line ending", "a\rb\n", "a\rb", "ab", "ab\n", 1},
		{"unicode", "héllo wörld\n", "wörld", "мир", "héllo мир\n", 1},
		{"old text with crlf in lf file", "a\nb\n", "a\r\nb", "a\r\nc", "a\nc\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, line, err := editText([]byte(tt.content), tt.old, tt.new)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if line != tt.line {
				t.Errorf("line %d, want %d", line, tt.line)
			}
		})
	}
}

func TestEditTextErrors(t *testing.T) {
	many := strings.Repeat("x := 1\n", 12)
	tests := []struct {
		name     string
		content  string
		old, new string
		want     string
	}{
		{"not found", "a\nb\n", "c", "d", "old_text was not found. It must match the file exactly"},
		{"whitespace hint", "\tindented\n", "  indented\n", "x", "it matches once leading and trailing whitespace is removed"},
		{"twice", "x\ny\nx\n", "x", "z", "old_text occurs 2 times (at lines 1, 3); include more surrounding text"},
		{"overlapping", "aaa\n", "aa", "b", "old_text occurs 2 times (at lines 1, 1)"},
		{"crlf twice", "k\r\nv\r\nk\r\nv\r\n", "k\nv", "z", "occurs 2 times (at lines 1, 3)"},
		{"many", many, "x := 1", "x := 2", "occurs 12 times (at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, and 2 more)"},
		{"identical", "a\n", "a", "a", "No changes made: old_text and new_text are identical"},
		{"identical after line endings", "a\r\nb\r\n", "a\nb", "a\r\nb", "No changes made"},
		{"empty old", "a\n", "", "b", "old_text is empty"},
		{"bom is not text", bom + "a\n", bom + "a", "b", "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := editText([]byte(tt.content), tt.old, tt.new)
			if err == nil {
				t.Fatalf("no error; got %q", got)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestEdit(t *testing.T) {
	w := newWorkspace(t)
	path := put(t, w, "src/main.py", []byte(bom+"def f():\r\n    return 1\r\n"))
	put(t, w, "blob.bin", []byte("a\x00b"))
	ctx := context.Background()

	msg, err := w.Edit(ctx, EditArgs{Path: "src/main.py", OldText: "    return 1\n", NewText: "    x = 1\n    return x\n"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if msg != "Edited src/main.py: replaced the text at line 2." {
		t.Errorf("message %q", msg)
	}
	if got, _ := os.ReadFile(path); string(got) != bom+"def f():\r\n    x = 1\r\n    return x\r\n" {
		t.Errorf("file holds %q", got)
	}
	if tmp := tempFiles(t, w.Root()); len(tmp) > 0 {
		t.Errorf("temporary files left behind: %v", tmp)
	}

	_, err = w.Edit(ctx, EditArgs{Path: "src/main.py", OldText: "x", NewText: "x"}, false)
	if !errors.Is(err, ErrNoChanges) || !strings.HasPrefix(err.Error(), "No changes made") {
		t.Errorf("identical texts: error = %v", err)
	}
	for _, tt := range []struct {
		args EditArgs
		want string
	}{
		{EditArgs{Path: "src/main.py", OldText: "return 2", NewText: "y"}, "src/main.py: old_text was not found"},
		{EditArgs{Path: "src/main.py", OldText: "x", NewText: "y"}, "src/main.py: old_text occurs 2 times (at lines 2, 3)"},
		{EditArgs{Path: "missing.py", OldText: "a", NewText: "b"}, "missing.py does not exist; create files with filesystem_write_text_file"},
		{EditArgs{Path: "blob.bin", OldText: "a", NewText: "b"}, "blob.bin is not a text file"},
		{EditArgs{Path: "src", OldText: "a", NewText: "b"}, "src is a directory"},
	} {
		before, _ := os.ReadFile(path)
		if _, err := w.Edit(ctx, tt.args, false); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error = %v, want %q", tt.args, err, tt.want)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
			t.Errorf("%+v: a failed edit changed the file", tt.args)
		}
	}

	put(t, w, "big.txt", bytes.Repeat([]byte("0123456789abcde\n"), MaxEditFileBytes/16+1))
	if _, err := w.Edit(ctx, EditArgs{Path: "big.txt", OldText: "0", NewText: "1"}, false); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("oversized file: error = %v", err)
	}
}

// sentinel never occurs in fuzzed files or old texts; wrapping new_text in
// it makes the count of new_text in the result exact.
const sentinel = "\uE000"

// FuzzEditText checks editText's invariants on arbitrary files, with LF or
// CRLF line endings, with or without a BOM, and old/new texts sent with LF or
// CRLF:
//   - with CRLF read as LF, the result is the file with the one occurrence of
//     old_text replaced by new_text;
//   - a BOM stays, and no BOM appears;
//   - a CRLF file has no bare LF afterwards, an LF file (or one without line
//     breaks) no CR;
//   - new_text occurs in the result exactly once more than in the file;
//   - zero or several matches are errors that give the right count.
func FuzzEditText(f *testing.F) {
	f.Add("a\nb\nc\n", "b", "B", false, false, false)
	f.Add("one\ntwo\nthree\n", "two\nthree", "2\n3", true, true, false)
	f.Add("x = 1\ny = 2\n", "x = 1\n", "", true, false, true)
	f.Add("aaa", "aa", "b", false, false, false)
	f.Add("k\nv\nk\nv\n", "k\nv", "z", true, false, true)
	f.Add("end", "end", "new\nlines\n", true, true, false)
	f.Add("end", "end", "new\nlines\n", false, true, true)
	f.Fuzz(func(t *testing.T, text, oldText, newText string, crlf, withBOM, crlfArgs bool) {
		clean := strings.NewReplacer(sentinel, "", "\r", "", bom, "")
		text, oldText, newText = clean.Replace(text), clean.Replace(oldText), clean.Replace(newText)
		if !utf8.ValidString(text) || !utf8.ValidString(oldText) || !utf8.ValidString(newText) {
			t.Skip()
		}
		newText = sentinel + newText + sentinel
		oldLF, newLF := oldText, newText
		if crlfArgs {
			oldText = strings.ReplaceAll(oldText, "\n", "\r\n")
			newText = strings.ReplaceAll(newText, "\n", "\r\n")
		}
		content := text
		if crlf {
			content = strings.ReplaceAll(text, "\n", "\r\n")
		}
		if withBOM {
			content = bom + content
		}
		count := len(indexAll(text, oldLF))

		got, line, err := editText([]byte(content), oldText, newText)
		switch {
		case oldLF == "":
			if err == nil {
				t.Fatal("empty old_text accepted")
			}
			return
		case count == 0:
			if err == nil || !strings.Contains(err.Error(), "not found") {
				t.Fatalf("no match: error = %v", err)
			}
			return
		case count > 1:
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("occurs %d times", count)) {
				t.Fatalf("%d matches: error = %v", count, err)
			}
			return
		case err != nil:
			t.Fatalf("one match: %v", err)
		}

		out := string(got)
		if strings.HasPrefix(out, bom) != withBOM {
			t.Fatalf("BOM present = %v, want %v: %q", !withBOM, withBOM, out)
		}
		out = strings.TrimPrefix(out, bom)
		if want := strings.Replace(text, oldLF, newLF, 1); toLF(out) != want {
			t.Fatalf("result %q, want (as LF) %q", out, want)
		}
		crlf = crlf && strings.Contains(text, "\n") // a file without line breaks has no style to keep: LF
		if crlf && strings.Count(out, "\n") != strings.Count(out, "\r\n") {
			t.Fatalf("CRLF file got a bare LF: %q", out)
		}
		if !crlf && strings.Contains(out, "\r") {
			t.Fatalf("LF file got a CR: %q", out)
		}
		if before, after := strings.Count(text, newLF), strings.Count(toLF(out), newLF); after != before+1 {
			t.Fatalf("new_text occurs %d times after the edit, %d before", after, before)
		}
		if want := lineAt(text, strings.Index(text, oldLF)); line != want {
			t.Fatalf("line %d, want %d", line, want)
		}
	})
}

func BenchmarkEditText(b *testing.B) {
	var lf strings.Builder
	for i := range 50_000 { // ~1 MB of source-like lines
		fmt.Fprintf(&lf, "\tvalue%d := compute(%d) // comment\n", i, i)
	}
	for _, bc := range []struct{ name, content string }{
		{"lf-1MB", lf.String()},
		{"crlf-bom-1MB", bom + strings.ReplaceAll(lf.String(), "\n", "\r\n")},
	} {
		b.Run(bc.name, func(b *testing.B) {
			content := []byte(bc.content)
			b.SetBytes(int64(len(content)))
			for b.Loop() {
				if _, _, err := editText(content, "value25000 := compute(25000)", "v := other()"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Parallel edits of one file (a model may send several in one reply) are
// serialised: every one of them lands.
func TestParallelEditsAllLand(t *testing.T) {
	w := newWorkspace(t)
	var b strings.Builder
	const n = 40
	for i := range n {
		fmt.Fprintf(&b, "line %d: todo\n", i)
	}
	path := put(t, w, "list.txt", []byte(b.String()))
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := w.Edit(context.Background(), EditArgs{Path: "list.txt", OldText: fmt.Sprintf("line %d: todo", i), NewText: fmt.Sprintf("line %d: done", i)}, false)
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	got, _ := os.ReadFile(path)
	if c := strings.Count(string(got), "done"); c != n {
		t.Errorf("%d of %d edits landed:\n%s", c, n, got)
	}
}
