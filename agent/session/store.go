// Package session owns the on-disk conversation record of a workspace:
// .freeact/sessions/<session-id>/<agent-id>.jsonl files of versioned
// envelopes, the session list shown by the GUI, and offloading of large
// tool results into sessions/<session-id>/tool-results/.
//
// The store is generic over the message payload, so it does not depend on
// the model package: each message is marshalled with encoding/json into
//
//	{"v": 1, "message": <payload>, "meta": {"ts": "<UTC ISO-8601>"}}
//
// one envelope a line.
package session

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/freeact/desktop/internal/crashpoint"
)

// Version is the envelope version this package writes and reads.
const Version = 1

// MainAgent is the agent id whose file is loaded on resume.
const MainAgent = "main"

// TimeFormat is the layout of meta.ts: UTC with microseconds and an
// explicit offset, as Python's datetime.isoformat writes it.
const TimeFormat = "2006-01-02T15:04:05.000000-07:00"

// Envelope is one line of a session file.
type Envelope struct {
	V       int             `json:"v"`
	Message json.RawMessage `json:"message"`
	Meta    Meta            `json:"meta"`
}

// Meta holds the envelope's metadata.
type Meta struct {
	TS string `json:"ts"`
}

// Format is a message format other than M's own JSON that a session file
// may hold (the Python freeact's pydantic-ai messages). A file whose first
// message Detect accepts is read with Decode, which may leave a message out
// (ok false), and appended to with Encode, so the file keeps its format.
type Format[M any] struct {
	Name   string
	Detect func(json.RawMessage) bool
	Decode func(json.RawMessage) (msg M, ok bool, err error)
	Encode func(M) (json.RawMessage, error)
}

// Store appends to and loads the files of one session. M is the message
// type; it must round-trip through encoding/json. A Store is safe for
// concurrent use (the main agent and its subagents write their own files
// through one Store).
type Store[M any] struct {
	dir     string // sessions/<id>
	id      string
	now     func() time.Time
	formats []Format[M]
	// format of each agent's file, once known (nil: M's own JSON).
	format map[string]*Format[M]

	mu      sync.Mutex
	files   map[string]*os.File // open for appending, by agent id
	summary *summary            // of main.jsonl, once it is open
	lock    *os.File            // the writer lock (Lock), held until Close
	// legacyLock is earlier versions' lock file, when it was free.
	legacyLock *os.File
	repairs    []Repair // not yet reported (Repair)
}

// NewID returns a new random session id (a UUID version 4).
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// Open returns the store of session id under sessionsDir (the workspace's
// .freeact/sessions). Nothing is created until the first append, so opening
// an id that does not exist yet starts a new session and opening one that
// exists resumes it. Files in one of formats are read and continued in it;
// new files are written in M's own JSON.
func Open[M any](sessionsDir, id string, formats ...Format[M]) (*Store[M], error) {
	if err := checkName("session id", id); err != nil {
		return nil, err
	}
	return &Store[M]{
		dir:     filepath.Join(sessionsDir, id),
		id:      id,
		now:     time.Now,
		formats: formats,
		format:  map[string]*Format[M]{},
		files:   map[string]*os.File{},
	}, nil
}

// Format returns the name of the format of an agent's file: "" for M's own
// JSON (and for a file that does not exist yet).
func (s *Store[M]) Format(agentID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.formatOf(agentID); f != nil {
		return f.Name
	}
	return ""
}

// formatOf detects the format of an agent's file from its first message,
// once. Callers hold s.mu.
func (s *Store[M]) formatOf(agentID string) *Format[M] {
	if f, ok := s.format[agentID]; ok {
		return f
	}
	if len(s.formats) == 0 {
		return nil
	}
	f, err := os.Open(s.File(agentID))
	if err != nil {
		return nil // a new file: ours
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var found *Format[M]
	for {
		line, err := r.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			if raw, _, derr := decodeLine[json.RawMessage](line); derr == nil {
				for i := range s.formats {
					if s.formats[i].Detect(raw) {
						found = &s.formats[i]
						break
					}
				}
			}
			break
		}
		if err != nil {
			break
		}
	}
	if found != nil || hasContent(f) {
		s.format[agentID] = found
	}
	return found
}

// hasContent reports whether f has content (so its format is settled).
func hasContent(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Size() > 0
}

// ID returns the session id.
func (s *Store[M]) ID() string { return s.id }

// Dir returns the session's directory.
func (s *Store[M]) Dir() string { return s.dir }

// ResultsDir returns the directory offloaded tool results go to.
func (s *Store[M]) ResultsDir() string { return filepath.Join(s.dir, "tool-results") }

// File returns the path of an agent's session file.
func (s *Store[M]) File(agentID string) string { return filepath.Join(s.dir, agentID+".jsonl") }

// Exists reports whether the session has a main file on disk.
func (s *Store[M]) Exists() bool {
	_, err := os.Stat(s.File(MainAgent))
	return err == nil
}

func checkName(what, name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%s is empty", what)
	case name == "." || name == "..", strings.ContainsAny(name, "/\\\x00"), len(name) > 200:
		return fmt.Errorf("%s %q is not usable as a file name: use letters, digits, '-' and '_'", what, name)
	}
	return nil
}

// Append writes msgs to the agent's file, one envelope a line, in a single
// write. It does not fsync; call Sync at a turn boundary.
func (s *Store[M]) Append(agentID string, msgs ...M) error {
	if err := checkName("agent id", agentID); err != nil {
		return fmt.Errorf("append to session %s: %w", s.id, err)
	}
	if len(msgs) == 0 {
		return nil
	}
	ts := s.now().UTC().Format(TimeFormat)
	s.mu.Lock()
	format := s.formatOf(agentID)
	s.mu.Unlock()
	var buf bytes.Buffer
	for _, m := range msgs {
		var raw []byte
		var err error
		if format != nil {
			raw, err = format.Encode(m)
		} else {
			raw, err = json.Marshal(m)
		}
		if err != nil {
			return fmt.Errorf("append to session %s: encode message: %w", s.id, err)
		}
		line, err := json.Marshal(Envelope{V: Version, Message: raw, Meta: Meta{TS: ts}})
		if err != nil {
			return fmt.Errorf("append to session %s: encode envelope: %w", s.id, err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.open(agentID)
	if err != nil {
		return fmt.Errorf("append to session %s: %w", s.id, err)
	}
	end, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("append to %s: %w", f.Name(), err)
	}
	if cut := crashpoint.Tear("session.append", buf.Bytes()); cut != nil {
		_, _ = f.Write(cut)
		crashpoint.Die()
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		// Take back a partial write (a full disk) so the next append does
		// not follow half a line.
		if terr := f.Truncate(end); terr == nil {
			_, _ = f.Seek(end, io.SeekStart)
		}
		return fmt.Errorf("append to %s: %w", f.Name(), err)
	}
	if agentID == MainAgent {
		// The summary only speeds up List, which checks it against the
		// file and reads the file when they differ: failing to update it
		// costs speed, not correctness.
		st, err := f.Stat()
		switch {
		case err != nil:
			s.summary = nil
		case s.summary != nil && s.summary.Size == end:
			s.summary.add(st, len(msgs), ts)
		default: // the file changed behind our back: count again
			s.summary, _ = loadSummary(s.dir, f.Name())
		}
		if s.summary != nil {
			_ = s.summary.save(s.dir)
		}
	}
	return nil
}

// open returns the agent's file open for appending. A partial last line
// left by a crash is cut off first (or completed with a newline when it is
// a whole envelope), so the next line never joins it.
func (s *Store[M]) open(agentID string) (*os.File, error) {
	if f := s.files[agentID]; f != nil {
		return f, nil
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(s.File(agentID), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	dropped, err := repairTail(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("repair %s: %w", f.Name(), err)
	}
	if len(dropped) > 0 {
		s.repairs = append(s.repairs, s.keepDropped(f.Name(), dropped, "message"))
	}
	if agentID == MainAgent {
		s.summary, _ = loadSummary(s.dir, f.Name()) // nil: rebuilt on the next append
	}
	s.files[agentID] = f
	return f, nil
}

// repairTail makes f end with a complete, well-formed line and positions
// it at the end: a partial last line left by a crash is cut off (or
// completed with a newline when it is a whole envelope), and a malformed
// last line, which Load ignores, is cut off too. Otherwise the next append
// would turn it into a malformed earlier line that fails every load. It
// returns what it cut off.
func repairTail(f *os.File) ([]byte, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	complete, at, partial, err := lastLines(f, info.Size())
	if err != nil {
		return nil, err
	}
	var malformed *malformedError
	var dropped []byte
	switch {
	case len(partial) > 0 && validEnvelope(partial):
		_, err = f.WriteAt([]byte{'\n'}, info.Size())
	case len(complete) > 0 && errors.As(parseErr(complete), &malformed):
		dropped = append(append([]byte(nil), complete...), partial...)
		err = f.Truncate(at)
	case len(partial) > 0:
		dropped = partial
		err = f.Truncate(info.Size() - int64(len(partial)))
	}
	if err != nil {
		return nil, err
	}
	_, err = f.Seek(0, io.SeekEnd)
	return dropped, err
}

func validEnvelope(line []byte) bool { return parseErr(line) == nil }

func parseErr(line []byte) error {
	_, err := parseEnvelope(line)
	return err
}

// Sync flushes every file written so far, and the session folder that
// lists them, to stable storage. Call it at the end of a turn.
func (s *Store[M]) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.files) == 0 {
		return nil
	}
	var errs []error
	for _, f := range s.files {
		if err := f.Sync(); err != nil {
			errs = append(errs, fmt.Errorf("sync %s: %w", f.Name(), err))
		}
	}
	if d, err := os.Open(s.dir); err == nil {
		// Some systems cannot sync a directory; the files are what matter.
		_ = d.Sync()
		d.Close()
	}
	return errors.Join(errs...)
}

// Close syncs and closes the open files.
func (s *Store[M]) Close() error {
	err := s.Sync()
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, f := range s.files {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = cerr
		}
		delete(s.files, id)
	}
	if s.lock != nil {
		s.lock.Close() // releases the flock
		s.lock = nil
	}
	if s.legacyLock != nil {
		s.legacyLock.Close()
		s.legacyLock = nil
	}
	return err
}

// Load reads the agent's messages in order. A missing file is an empty
// history. A malformed last line (an interrupted write) is ignored; a
// malformed earlier line, another version or a missing ts is an error
// naming the file and line.
func (s *Store[M]) Load(agentID string) ([]M, error) {
	msgs, _, err := s.LoadTimed(agentID)
	return msgs, err
}

// LoadTimed is Load with when each message was saved (meta.ts; the zero
// time where it does not parse).
func (s *Store[M]) LoadTimed(agentID string) ([]M, []time.Time, error) {
	if err := checkName("agent id", agentID); err != nil {
		return nil, nil, fmt.Errorf("load session %s: %w", s.id, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	name := s.File(agentID)
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load session: %w", err)
	}
	format := s.formatOf(agentID)
	var out []M
	var times []time.Time
	err = scanLines(data, name, func(line []byte, last bool) error {
		var m M
		var ts string
		keep := true
		if format != nil {
			var raw json.RawMessage
			if raw, ts, err = decodeLine[json.RawMessage](line); err == nil {
				if m, keep, err = format.Decode(raw); err != nil {
					err = fmt.Errorf("%s message: %w", format.Name, err)
				}
			}
		} else {
			m, ts, err = decodeLine[M](line)
		}
		var malformed *malformedError
		if err != nil && last && errors.As(err, &malformed) {
			return nil // the write of the last line was interrupted
		}
		if err == nil && keep {
			out = append(out, m)
			times = append(times, parseTS(ts))
		}
		return err
	})
	return out, times, err
}

// LineError reports a bad line in a session file.
type LineError struct {
	File string
	Line int // 1-based
	Err  error
}

func (e *LineError) Error() string {
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// scanLines calls fn for each non-empty line of data, saying whether it is
// the last one, and wraps fn's error with file and line number.
func scanLines(data []byte, file string, fn func(line []byte, last bool) error) error {
	lineNo := 0
	for len(data) > 0 {
		lineNo++
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i < 0 {
			line, data = data, nil
		} else {
			line, data = data[:i], data[i+1:]
		}
		if len(line) == 0 {
			continue // empty lines are skipped
		}
		if err := fn(line, len(bytes.Trim(data, "\n")) == 0); err != nil {
			return &LineError{File: file, Line: lineNo, Err: err}
		}
	}
	return nil
}

type malformedError struct{ err error }

func (e *malformedError) Error() string { return "malformed JSON: " + e.err.Error() }

// parseEnvelope checks one line without decoding its message.
func parseEnvelope(line []byte) (Envelope, error) {
	raw, ts, err := decodeLine[json.RawMessage](line)
	return Envelope{V: Version, Message: raw, Meta: Meta{TS: ts}}, err
}

// decodeLine checks one line (valid JSON, v == Version, a message and a
// non-empty meta.ts) and decodes its message, in a single pass.
func decodeLine[M any](line []byte) (msg M, ts string, err error) {
	var env struct {
		V       *int `json:"v"`
		Message *M   `json:"message"`
		Meta    *struct {
			TS *string `json:"ts"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(line, &env); err != nil {
		var syntaxErr *json.SyntaxError
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syntaxErr):
			return msg, "", &malformedError{err}
		case errors.As(err, &typeErr):
			return msg, "", fmt.Errorf("field %s has the wrong type (%s)", typeErr.Field, typeErr.Value)
		default:
			return msg, "", fmt.Errorf("decode message: %w", err)
		}
	}
	switch {
	case env.V == nil:
		return msg, "", errors.New(`envelope has no "v"`)
	case *env.V != Version:
		return msg, "", fmt.Errorf("envelope version %d is not supported (this app reads version %d)", *env.V, Version)
	case env.Message == nil:
		return msg, "", errors.New(`envelope has no "message"`)
	case env.Meta == nil || env.Meta.TS == nil || *env.Meta.TS == "":
		return msg, "", errors.New(`envelope has no "meta.ts"`)
	}
	return *env.Message, *env.Meta.TS, nil
}
