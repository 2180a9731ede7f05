package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// BusyError is the error of opening a session for writing that another
// process writes to.
type BusyError struct {
	PID int // the writer's process id; 0 when unknown
}

func (e *BusyError) Error() string {
	who := "another freeact window"
	if e.PID > 0 {
		who += fmt.Sprintf(", pid %d", e.PID)
	}
	return "this conversation is open in " + who + ": close it there, open it read-only, or fork it to continue in a copy"
}

func isOurs(err error) bool {
	var busy *BusyError
	return errors.As(err, &busy) && busy.PID == os.Getpid()
}

// ErrBusy matches a *BusyError with errors.Is.
var ErrBusy = errors.New("session is open in another process")

// Is makes errors.Is(err, ErrBusy) hold.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// LockFile returns the path of the session's writer lock.
func (s *Store[M]) LockFile() string { return filepath.Join(filepath.Dir(s.dir), s.id+".lock") }

// Lock makes this store the session's only writer until Close: a second
// process (or store) that tries fails with a *BusyError naming this one.
// Readers (Load, List, Fork, export) need no lock.
func (s *Store[M]) Lock() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock != nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(s.dir), 0o755); err != nil {
		return fmt.Errorf("lock session %s: %w", s.id, err)
	}
	f, err := lockFile(s.LockFile())
	// A store of this process that is closing (an agent restarted on the
	// same session) lets go in a moment.
	for delay := 10 * time.Millisecond; isOurs(err) && delay < 5*time.Second; delay *= 2 {
		time.Sleep(delay)
		f, err = lockFile(s.LockFile())
	}
	if err != nil {
		var busy *BusyError
		if errors.As(err, &busy) {
			return fmt.Errorf("session %s: %w", s.id, err)
		}
		return fmt.Errorf("lock session %s: %w", s.id, err)
	}
	s.lock = f
	return nil
}
