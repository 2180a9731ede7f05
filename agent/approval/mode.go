package approval

import (
	"fmt"
	"sync/atomic"
)

// Mode is how an agent's calls are approved.
type Mode int32

const (
	// ByRules lets the saved rules and the session's grants allow a call
	// at once; every other call is asked. The default.
	ByRules Mode = iota
	// AskAll asks for every call: saved rules and grants allow nothing
	// (an Always answer is still saved, for ByRules). Protected files
	// keep their protection.
	AskAll
)

func (m Mode) String() string {
	switch m {
	case ByRules:
		return "rules"
	case AskAll:
		return "ask"
	}
	return fmt.Sprintf("Mode(%d)", int32(m))
}

// ModeSwitch holds an agent's Mode, shared by its subagents; it may be
// set while a turn runs (the next approval uses it). The zero value is
// ByRules.
type ModeSwitch struct{ v atomic.Int32 }

// Set switches to m.
func (s *ModeSwitch) Set(m Mode) { s.v.Store(int32(m)) }

// Get is the mode now; a nil switch is ByRules.
func (s *ModeSwitch) Get() Mode {
	if s == nil {
		return ByRules
	}
	return Mode(s.v.Load())
}
