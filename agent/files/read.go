package files

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"
)

// Limits of filesystem_read_text_file. The reader streams the file, so memory
// use stays near MaxReadBytes whatever the file's size.
const (
	// DefaultLineLimit is the number of lines returned when the call sets no limit.
	DefaultLineLimit = 2000
	// MaxLineBytes is the longest line returned in full; longer lines are cut.
	MaxLineBytes = 4000
	// MaxReadBytes caps the text one call returns; the result then says which
	// offset to continue at.
	MaxReadBytes = 128 << 10
	// sniffBytes is how much of a file's head decides whether it is binary.
	sniffBytes = 8 << 10
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// ReadText returns lines of a text file for the model. A UTF-8 byte order
// mark is dropped, CRLF line endings are shown as LF and invalid UTF-8 bytes
// as U+FFFD. When the result is not the whole file, a bracketed note after the
// text says which lines were shown and which offset continues.
func (w *Workspace) ReadText(ctx context.Context, a ReadTextArgs, approved bool) (string, error) {
	p, err := w.resolve(ctx, a.Path, approved)
	if err != nil {
		return "", err
	}
	return w.readText(ctx, a, p)
}

func (w *Workspace) readText(ctx context.Context, a ReadTextArgs, p Path) (string, error) {
	f, err := w.openRegular(ctx, p)
	if err != nil {
		return "", err
	}
	defer f.Close()

	r := bufio.NewReaderSize(f, sniffBytes)
	head, err := r.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return "", fmt.Errorf("read %s: %w", p.Display(), err)
	}
	if reason := binaryReason(head); reason != "" {
		return "", fmt.Errorf("%s is not a text file (%s); %s reads only text. Use %s for images, PDFs, audio and video, or inspect other files with a code action",
			p.Display(), reason, ReadTextFile, ReadMediaFile)
	}
	if bytes.HasPrefix(head, utf8BOM) {
		_, _ = r.Discard(len(utf8BOM))
	}

	offset, limit := max(a.Offset, 1), a.Limit
	if limit == 0 {
		limit = DefaultLineLimit
	}
	var (
		out       strings.Builder
		lineNo    int // lines read so far
		shown     int // lines written to out
		cut       int // lines shortened to MaxLineBytes
		byteLimit bool
		scratch   = make([]byte, 0, 256)
	)
	for {
		if lineNo%1024 == 0 && ctx.Err() != nil {
			return "", fmt.Errorf("read %s: %w", p.Display(), ctx.Err())
		}
		if shown == limit {
			break
		}
		keep := lineNo+1 >= offset
		line, dropped, ok, err := readLine(r, keep, scratch)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", p.Display(), err)
		}
		if !ok {
			break
		}
		lineNo++
		if !keep {
			continue
		}
		if !utf8.Valid(line) {
			line = bytes.ToValidUTF8(line, []byte("\uFFFD"))
		}
		if dropped > 0 {
			cut++
			nl := bytes.HasSuffix(line, []byte("\n"))
			line = fmt.Appendf(bytes.TrimSuffix(line, []byte("\n")), "… [line cut: %d more bytes]", dropped)
			if nl {
				line = append(line, '\n')
			}
		}
		if shown > 0 && out.Len()+len(line) > MaxReadBytes {
			byteLimit = true
			break
		}
		out.Write(line)
		scratch = line[:0] // keep any growth
		shown++
	}

	if shown == 0 {
		if lineNo == 0 {
			return fmt.Sprintf("[%s is empty.]", p.Display()), nil
		}
		return "", fmt.Errorf("offset %d is past the end of %s, which has %d lines", offset, p.Display(), lineNo)
	}
	more := byteLimit
	if !more {
		_, err := r.Peek(1)
		more = err == nil
	}
	var notes []string
	first, last := offset, offset+shown-1
	switch {
	case more:
		why := ""
		if byteLimit {
			why = fmt.Sprintf(" (output is capped at %d KiB)", MaxReadBytes>>10)
		}
		notes = append(notes, fmt.Sprintf("[Showing lines %d-%d of %s%s. The file continues: read on with offset=%d.]", first, last, p.Display(), why, last+1))
	case offset > 1:
		notes = append(notes, fmt.Sprintf("[Showing lines %d-%d of %s, the end of the file.]", first, last, p.Display()))
	}
	if cut > 0 {
		notes = append(notes, fmt.Sprintf("[%d line(s) longer than %d bytes were cut short.]", cut, MaxLineBytes))
	}
	text := out.String()
	if len(notes) > 0 {
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += "\n" + strings.Join(notes, "\n")
	}
	return text, nil
}

// readLine reads the next line; ok is false at the end of the file. A kept
// line comes back with its line ending as "\n" (CRLF turned into LF); a line
// longer than MaxLineBytes is cut at a rune boundary and cut counts the bytes
// left out. When keep is false the line is skipped without being stored. The
// line is built in buf's storage, so it is valid until the next call with buf.
func readLine(r *bufio.Reader, keep bool, buf []byte) (line []byte, cut int64, ok bool, err error) {
	buf = buf[:0]
	var (
		total  int64
		lastCR bool // the previous chunk ended in '\r'
		crlf   bool
	)
	for {
		chunk, err := r.ReadSlice('\n')
		total += int64(len(chunk))
		if keep && len(buf) < MaxLineBytes+2 {
			buf = append(buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			lastCR = len(chunk) > 0 && chunk[len(chunk)-1] == '\r'
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, false, err
		}
		if total == 0 {
			return nil, 0, false, nil
		}
		if !keep {
			return nil, 0, true, nil
		}
		nl := err == nil
		if nl {
			crlf = len(chunk) >= 2 && chunk[len(chunk)-2] == '\r' || len(chunk) == 1 && lastCR
		}
		content := total
		switch {
		case crlf:
			content -= 2
		case nl:
			content--
		}
		body := buf[:min(int64(len(buf)), content)]
		if len(body) > MaxLineBytes {
			body = body[:runeCut(body, MaxLineBytes)]
		}
		cut = content - int64(len(body))
		if nl {
			body = append(body, '\n')
		}
		return body, cut, true, nil
	}
}

// runeCut returns n, moved back to the start of the rune that straddles it;
// in invalid UTF-8 without a rune start nearby it stays n.
func runeCut(b []byte, n int) int {
	for i := n; i > n-utf8.UTFMax && i > 0; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return n
}

// binaryReason returns why head, the start of a file, does not look like
// UTF-8 text, or "" when it does.
func binaryReason(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}), bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		return "UTF-16 text; only UTF-8 is supported"
	case bytes.IndexByte(head, 0) >= 0:
		return "binary data, detected as " + http.DetectContentType(head)
	}
	control := 0
	for _, b := range head {
		if b < 0x20 && !strings.ContainsRune("\t\n\v\f\r\b\x1b", rune(b)) {
			control++
		}
	}
	if control*10 > len(head) {
		return "binary data, detected as " + http.DetectContentType(head)
	}
	return ""
}
