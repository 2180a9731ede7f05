package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/freeact/desktop/internal/appdirs"
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

// LockFile returns the path of the session's writer lock in the folder
// of locks (appdirs.Dirs.Locks): a file named after the session's folder,
// outside the workspace, where no sandbox can open it (code that held an
// flock on it would keep the user from opening the conversation).
func LockFile(locks, sessionsDir, id string) string {
	return appdirs.LockFile(locks, "session", filepath.Join(sessionsDir, id))
}

// legacyLockFile is where freeact before 0.x.y kept the lock: beside the
// session's folder.
func legacyLockFile(sessionsDir, id string) string { return filepath.Join(sessionsDir, id+".lock") }

// LockFile returns the path of the store's writer lock in locks.
func (s *Store[M]) LockFile(locks string) string { return LockFile(locks, filepath.Dir(s.dir), s.id) }

// Lock makes this store the session's only writer until Close: a second
// process (or store) that tries fails with a *BusyError naming this one.
// locks is the folder of lock files (appdirs.Dirs.Locks), one for all
// processes of the user. Readers (Load, List, Fork, export) need no lock.
//
// The lock file of earlier versions, beside the session's folder, is
// taken too when it is free, so they see the session busy; when it is
// held the session opens anyway: code in a sandbox can hold that file.
func (s *Store[M]) Lock(locks string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock != nil {
		return nil
	}
	if locks == "" {
		return fmt.Errorf("lock session %s: no folder for locks", s.id)
	}
	if err := appdirs.MakePrivate(locks); err != nil {
		return fmt.Errorf("lock session %s: %w", s.id, err)
	}
	file := s.LockFile(locks)
	f, err := lockFile(file)
	// A store of this process that is closing (an agent restarted on the
	// same session) lets go in a moment.
	for delay := 10 * time.Millisecond; isOurs(err) && delay < 5*time.Second; delay *= 2 {
		time.Sleep(delay)
		f, err = lockFile(file)
	}
	if err != nil {
		var busy *BusyError
		if errors.As(err, &busy) {
			return fmt.Errorf("session %s: %w", s.id, err)
		}
		return fmt.Errorf("lock session %s: %w", s.id, err)
	}
	s.lock = f
	s.legacyLock = lockLegacy(legacyLockFile(filepath.Dir(s.dir), s.id))
	return nil
}
