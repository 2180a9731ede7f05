package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/freeact/desktop/internal/appdirs"
	"github.com/freeact/desktop/internal/atomicfile"
)

// titleFile holds a session's title when the user renamed it; List shows
// it instead of the first prompt.
const titleFile = ".title.json"

type titleData struct {
	Title string `json:"title"`
}

// maxTitle bounds a title, in characters.
const maxTitle = 200

// Rename gives session id a title of its own; an empty title goes back to
// its first prompt.
func Rename(sessionsDir, id, title string) error {
	if err := checkName("session id", id); err != nil {
		return fmt.Errorf("rename session: %w", err)
	}
	dir := filepath.Join(sessionsDir, id)
	if _, err := os.Stat(filepath.Join(dir, MainAgent+".jsonl")); err != nil {
		return fmt.Errorf("rename session %s: it has no messages yet (%w)", id, err)
	}
	title = strings.Join(strings.Fields(title), " ")
	if utf8.RuneCountInString(title) > maxTitle {
		return fmt.Errorf("rename session: the title has %d characters; keep it to %d", utf8.RuneCountInString(title), maxTitle)
	}
	name := filepath.Join(dir, titleFile)
	if title == "" {
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("rename session: %w", err)
		}
		return nil
	}
	data, err := json.Marshal(titleData{title})
	if err != nil {
		return err
	}
	if err := atomicfile.Write(name, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("rename session: %w", err)
	}
	return nil
}

// ownTitle returns the title Rename gave the session in dir, if any.
func ownTitle(dir string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(dir, titleFile))
	if err != nil {
		return "", false
	}
	var t titleData
	if json.Unmarshal(data, &t) != nil || t.Title == "" {
		return "", false
	}
	return t.Title, true
}

// Delete removes session id: its messages, subagents' messages, offloaded
// results and title. locks is the folder of lock files (see Store.Lock):
// a session another process writes is not deleted.
func Delete(locks, sessionsDir, id string) error {
	if err := checkName("session id", id); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	dir := filepath.Join(sessionsDir, id)
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if err := appdirs.MakePrivate(locks); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	lock := LockFile(locks, sessionsDir, id)
	f, err := lockFile(lock)
	switch {
	case isOurs(err): // this process closes it
	case err != nil:
		return fmt.Errorf("delete session %s: %w", id, err)
	default:
		defer f.Close()
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	_ = os.Remove(lock)
	_ = os.Remove(legacyLockFile(sessionsDir, id))
	return nil
}

// Match is a session whose messages contain a searched text: Snippet is
// the text around the first place it occurs.
type Match struct {
	ID      string `json:"id"`
	Snippet string `json:"snippet"`
}

// TextFunc returns the searchable text of a message (its prompt or reply);
// the agent supplies it because only it knows the message format.
type TextFunc func(message json.RawMessage) string

// snippetRadius is how many characters a snippet shows either side of the
// match.
const snippetRadius = 40

// Search finds the sessions under sessionsDir whose main messages contain
// query, ignoring case, and returns them with a snippet each, in no
// particular order. Unreadable sessions are skipped and reported together
// in the error, next to the matches found.
func Search(sessionsDir, query string, text TextFunc) ([]Match, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(sessionsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("search sessions: %w", err)
	}
	folded := strings.ToLower(query)
	var out []Match
	var errs []error
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		m, ok, err := searchOne(filepath.Join(sessionsDir, e.Name(), MainAgent+".jsonl"), folded, text)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if t, renamed := ownTitle(filepath.Join(sessionsDir, e.Name())); !ok && renamed && strings.Contains(strings.ToLower(t), folded) {
			m, ok = t, true
		}
		if ok {
			out = append(out, Match{ID: e.Name(), Snippet: m})
		}
	}
	return out, errors.Join(errs...)
}

// searchOne returns the snippet of the first message of file that holds
// the lower-cased query.
func searchOne(file, query string, text TextFunc) (string, bool, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 1 {
			if raw, _, derr := decodeLine[json.RawMessage](line); derr == nil {
				t := text(raw)
				if i := strings.Index(strings.ToLower(t), query); i >= 0 {
					return snippet(t, i, len(query)), true, nil
				}
			}
		}
		if err != nil {
			return "", false, nil
		}
	}
}

// snippet cuts text around the match at byte offset i of length n, on
// character boundaries, with one line's worth of space.
func snippet(text string, i, n int) string {
	start, end := i, i+n
	for k := 0; k < snippetRadius && start > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(text[:start])
		start -= size
	}
	for k := 0; k < snippetRadius && end < len(text); k++ {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
	}
	s := strings.Join(strings.Fields(text[start:end]), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(text) {
		s += "…"
	}
	return s
}
