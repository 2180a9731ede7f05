package files

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// MaxEditFileBytes is the largest file filesystem_edit_text_file edits; it
// reads the whole file into memory.
const MaxEditFileBytes = 16 << 20

// ErrNoChanges is the error for an edit whose old and new text are the same.
//
//lint:ignore ST1005 the model and the spec know this exact wording.
var ErrNoChanges = errors.New("No changes made")

// maxListedLines is how many line numbers an ambiguous-match error lists.
const maxListedLines = 10

// Edit replaces the one occurrence of a.OldText in a file with a.NewText and
// writes the file atomically. The model sends LF text; in a file with CRLF
// line endings the match ignores the difference and the new text gets the
// line endings of the text it replaces, and a UTF-8 byte order mark is kept.
// It is an error when old_text occurs zero times or more than once (the
// error says how often and on which lines) or when nothing would change.
func (w *Workspace) Edit(ctx context.Context, a EditArgs, approved bool) (string, error) {
	if toLF(a.OldText) == toLF(a.NewText) { // before any file access: the message stands alone
		return "", fmt.Errorf("%w: old_text and new_text are identical", ErrNoChanges)
	}
	p, err := w.resolve(ctx, a.Path, approved)
	if err != nil {
		return "", err
	}
	return w.edit(ctx, a, p)
}

func (w *Workspace) edit(ctx context.Context, a EditArgs, p Path) (string, error) {
	if toLF(a.OldText) == toLF(a.NewText) {
		return "", fmt.Errorf("%w: old_text and new_text are identical", ErrNoChanges)
	}
	defer w.lock(p.Abs)() // from read to rename: a parallel edit waits
	f, err := w.openRegular(ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s does not exist; create files with %s", p.Display(), WriteTextFile)
	}
	if err != nil {
		return "", err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxEditFileBytes+1))
	f.Close()
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p.Display(), err)
	}
	if len(data) > MaxEditFileBytes {
		return "", fmt.Errorf("%s is larger than %d MiB, too large for %s; change it with a code action instead", p.Display(), MaxEditFileBytes>>20, EditTextFile)
	}
	if reason := binaryReason(data[:min(len(data), sniffBytes)]); reason != "" {
		return "", fmt.Errorf("%s is not a text file (%s); %s edits only UTF-8 text", p.Display(), reason, EditTextFile)
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("edit %s: %w", p.Display(), err)
	}
	out, line, err := editText(data, a.OldText, a.NewText)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p.Display(), err)
	}
	if _, err := w.writeFile(ctx, p, out); err != nil {
		return "", err
	}
	return fmt.Sprintf("Edited %s: replaced the text at line %d.", p.Display(), line), nil
}

// editText replaces the single occurrence of oldText in content, the bytes
// of a file, and returns the new content and the 1-based line the
// replacement starts at. Matching happens on the content with CRLF read as
// LF; the bytes outside the match are kept exactly, including a UTF-8 BOM.
// The replacement uses CRLF when the replaced bytes contain a CRLF, LF when
// they contain a bare LF, and otherwise the file's prevailing line ending.
func editText(content []byte, oldText, newText string) ([]byte, int, error) {
	oldText, newText = toLF(oldText), toLF(newText)
	if oldText == "" {
		return nil, 0, fmt.Errorf("old_text is empty; give the exact text to replace, or use %s to write a whole file", WriteTextFile)
	}
	if oldText == newText {
		return nil, 0, fmt.Errorf("%w: old_text and new_text are identical", ErrNoChanges)
	}
	var bom []byte
	if bytes.HasPrefix(content, utf8BOM) {
		bom, content = utf8BOM, content[len(utf8BOM):]
	}
	norm := toLF(string(content))
	matches := indexAll(norm, oldText)
	switch len(matches) {
	case 0:
		msg := "old_text was not found"
		if trimmed := strings.TrimSpace(oldText); trimmed != oldText && trimmed != "" && strings.Contains(norm, trimmed) {
			msg += "; it matches once leading and trailing whitespace is removed, so check the whitespace"
		}
		return nil, 0, fmt.Errorf("%s. It must match the file exactly, including indentation; read the file again if unsure", msg)
	case 1:
	default:
		var lines []string
		for _, m := range matches[:min(len(matches), maxListedLines)] {
			lines = append(lines, fmt.Sprint(lineAt(norm, m)))
		}
		if len(matches) > maxListedLines {
			lines = append(lines, fmt.Sprintf("and %d more", len(matches)-maxListedLines))
		}
		return nil, 0, fmt.Errorf("old_text occurs %d times (at lines %s); include more surrounding text so that it matches exactly one place",
			len(matches), strings.Join(lines, ", "))
	}

	start, end := origOffsets(content, matches[0], matches[0]+len(oldText))
	crlf := bytes.Contains(content[start:end], []byte("\r\n"))
	if !crlf && bytes.IndexByte(content[start:end], '\n') < 0 {
		all := bytes.Count(content, []byte("\n"))
		crlfs := bytes.Count(content, []byte("\r\n"))
		crlf = crlfs > all-crlfs
	}
	repl := newText
	if crlf {
		repl = strings.ReplaceAll(newText, "\n", "\r\n")
	}
	out := make([]byte, 0, len(bom)+len(content)-(end-start)+len(repl))
	out = append(out, bom...)
	out = append(out, content[:start]...)
	out = append(out, repl...)
	out = append(out, content[end:]...)
	return out, lineAt(norm, matches[0]), nil
}

// toLF turns CRLF line endings into LF.
func toLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// indexAll returns the start of every occurrence of sub in s, overlapping
// ones included: each of them would be a different edit.
func indexAll(s, sub string) []int {
	var out []int
	for i := 0; i <= len(s)-len(sub); {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			break
		}
		out = append(out, i+j)
		i += j + 1
	}
	return out
}

// lineAt returns the 1-based line number of byte offset off in s.
func lineAt(s string, off int) int { return 1 + strings.Count(s[:off], "\n") }

// origOffsets maps the offsets start <= end in toLF(content) back to offsets
// in content, by adding the CRLFs that toLF shortened before each of them.
func origOffsets(content []byte, start, end int) (int, int) {
	ostart, oend := -1, -1
	n := 0 // offset in the LF text
	for i := 0; i <= len(content); i++ {
		if n == start && ostart < 0 {
			ostart = i
		}
		if n == end {
			oend = i
			break
		}
		if i < len(content) && content[i] == '\r' && i+1 < len(content) && content[i+1] == '\n' {
			continue // the '\r' of a CRLF has no counterpart in the LF text
		}
		n++
	}
	return ostart, oend
}
