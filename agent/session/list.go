package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Info describes one session for the session list.
type Info struct {
	ID         string    `json:"id"`
	Created    time.Time `json:"created" ts_type:"string"`     // ts of the first message (RFC 3339 in JSON)
	LastActive time.Time `json:"last_active" ts_type:"string"` // ts of the last message
	Title      string    `json:"title"`                        // the first user prompt, or the title given by Rename
	Renamed    bool      `json:"renamed"`                      // Title was given by Rename
	Messages   int       `json:"messages"`                     // messages in main.jsonl
}

// TitleFunc returns the title for a message when it is a user prompt
// (ok=true), so List can show the first one. The agent supplies it because
// only it knows the message format.
type TitleFunc func(message json.RawMessage) (title string, ok bool)

// List describes the sessions under sessionsDir that have a main file,
// most recently active first. Unreadable sessions are skipped and reported
// together in the error, next to the sessions that could be read.
func List(sessionsDir string, title TitleFunc) ([]Info, error) {
	entries, err := os.ReadDir(sessionsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	out := make([]Info, 0, len(entries))
	var errs []error
	sc := newScanner(256 << 10)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		info, err := describeFast(filepath.Join(sessionsDir, e.Name()), e.Name(), title, sc)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if info.Messages > 0 {
			if t, ok := ownTitle(filepath.Join(sessionsDir, e.Name())); ok {
				info.Title, info.Renamed = t, true
			}
			out = append(out, info)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].LastActive.Equal(out[j].LastActive) {
			return out[i].LastActive.After(out[j].LastActive)
		}
		return out[i].ID < out[j].ID
	})
	return out, errors.Join(errs...)
}

// scanner holds the buffers List reuses from file to file.
type scanner struct {
	r   *bufio.Reader
	buf []byte
}

// newScanner returns a scanner with a small line reader (List mostly reads
// one or two lines of a file) and a larger buffer for counting lines.
func newScanner(bufSize int) *scanner {
	return &scanner{r: bufio.NewReaderSize(nil, 8<<10), buf: make([]byte, bufSize)}
}

func (sc *scanner) reader(f io.Reader) *bufio.Reader {
	sc.r.Reset(f)
	return sc.r
}

// describeFast describes a session from its summary when the summary
// matches main.jsonl, reading only the head of the file for the title;
// else it reads the whole file.
func describeFast(dir, id string, title TitleFunc, sc *scanner) (Info, error) {
	name := filepath.Join(dir, MainAgent+".jsonl")
	st, err := os.Stat(name)
	if err != nil {
		return Info{ID: id}, err
	}
	sum, ok := readSummary(dir, st)
	if !ok {
		return describe(name, id, title, sc)
	}
	info := Info{ID: id, Messages: sum.Messages, Created: parseTS(sum.Created), LastActive: parseTS(sum.LastActive)}
	if title == nil {
		return info, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return info, err
	}
	defer f.Close()
	r := sc.reader(f)
	for range maxTitleLines {
		line, err := r.ReadBytes('\n')
		if len(line) > 1 {
			if raw, _, derr := decodeLine[json.RawMessage](line); derr == nil {
				if t, ok := title(raw); ok {
					info.Title = t
					break
				}
			}
		}
		if err != nil {
			break
		}
	}
	return info, nil
}

// maxTitleLines bounds how far into a session List looks for the first
// user prompt when a summary gives the rest.
const maxTitleLines = 100

// describe reads one main file: the first lines until the title is found,
// then only a count of the newlines, and the last line from the end.
func describe(name, id string, title TitleFunc, sc *scanner) (Info, error) {
	info := Info{ID: id}
	f, err := os.Open(name)
	if err != nil {
		return info, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return info, err
	}
	r := sc.reader(f)
	lines := 0
	for lineNo := 1; ; lineNo++ {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			break // a last line without newline is handled below
		}
		if err != nil {
			return info, fmt.Errorf("read %s: %w", name, err)
		}
		if len(line) == 1 {
			continue // an empty line
		}
		lines++
		env, perr := parseEnvelope(line)
		if perr != nil {
			var malformed *malformedError
			if _, err := r.Peek(1); err == io.EOF && errors.As(perr, &malformed) {
				break // an interrupted last line: not counted below
			}
			return info, &LineError{File: name, Line: lineNo, Err: perr}
		}
		if lines == 1 {
			info.Created = parseTS(env.Meta.TS)
		}
		if title == nil {
			break
		}
		if t, ok := title(env.Message); ok {
			info.Title = t
			break
		}
	}
	prev := byte('\n') // the head ended at a line start
	for {
		n, err := r.Read(sc.buf)
		lines += countLines(sc.buf[:n], &prev)
		if err == io.EOF {
			break
		}
		if err != nil {
			return info, fmt.Errorf("read %s: %w", name, err)
		}
	}
	complete, _, partial, err := lastLines(f, st.Size())
	if err != nil {
		return info, fmt.Errorf("read %s: %w", name, err)
	}
	last := complete
	if len(partial) > 0 {
		if _, err := parseEnvelope(partial); err == nil {
			lines++
			last = partial
		}
	}
	if len(complete) > 0 && len(partial) == 0 && lines > 0 {
		var malformed *malformedError
		if _, err := parseEnvelope(complete); errors.As(err, &malformed) {
			lines-- // a malformed last line is not a message
		}
	}
	info.Messages = lines
	if env, err := parseEnvelope(last); err == nil {
		info.LastActive = parseTS(env.Meta.TS)
		if lines == 1 && info.Created.IsZero() {
			info.Created = info.LastActive
		}
	}
	if info.LastActive.IsZero() {
		info.LastActive = info.Created
	}
	return info, nil
}

// countLines counts the non-empty lines ending in b; prev is the byte
// before b and is updated.
func countLines(b []byte, prev *byte) int {
	n := 0
	for off := 0; ; {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			break
		}
		before := *prev
		if off+i > 0 {
			before = b[off+i-1]
		}
		if before != '\n' {
			n++
		}
		off += i + 1
	}
	if len(b) > 0 {
		*prev = b[len(b)-1]
	}
	return n
}

// lastLines returns the last non-empty newline-terminated line of f
// (without its newline) with its offset, and the bytes after the last
// newline.
func lastLines(f io.ReaderAt, size int64) (complete []byte, at int64, partial []byte, err error) {
	const chunk = 64 << 10
	var tail []byte
	for end := size; end > 0; {
		start := max(0, end-chunk)
		buf := make([]byte, end-start)
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return nil, 0, nil, err
		}
		tail = append(buf, tail...)
		end = start
		if c, off, p, ok := splitTail(tail, end == 0); ok {
			return c, end + int64(off), p, nil
		}
	}
	return nil, 0, nil, nil
}

// splitTail finds the last complete line in tail, the end of a file, and
// its offset in tail; whole says tail starts at the beginning of the file.
func splitTail(tail []byte, whole bool) (complete []byte, at int, partial []byte, ok bool) {
	i := bytes.LastIndexByte(tail, '\n')
	if i < 0 {
		return nil, 0, tail, whole
	}
	partial = tail[i+1:]
	body := bytes.TrimRight(tail[:i], "\n")
	if len(body) == 0 {
		return nil, 0, partial, whole
	}
	j := bytes.LastIndexByte(body, '\n')
	if j < 0 {
		return body, 0, partial, whole
	}
	return body[j+1:], j + 1, partial, true
}

// parseTS parses an envelope timestamp; an unparsable one gives zero time.
func parseTS(ts string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05.999999999-07:00"} {
		if t, err := time.Parse(layout, ts); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
