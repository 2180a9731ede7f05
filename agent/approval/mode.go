package approval

import (
	"fmt"
	"strings"
)

// Mode is how a conversation's approvals are answered. The zero value is
// Rules, the behaviour without a mode: saved rules and session grants
// allow what they cover, everything else is asked.
type Mode int32

const (
	// Rules: saved rules and session grants allow what they cover; every
	// other call is asked.
	Rules Mode = iota
	// Ask: every call is asked, whatever the rules allow (ask rules and
	// protected files ask as always).
	Ask
	// Auto: rules first, then the structural layer (sandbox and
	// checkpoints, read-only tools of a trusted server), then the judge;
	// see State.
	Auto
)

// String is the mode's name in settings, flags and events: "rules",
// "ask" or "auto".
func (m Mode) String() string {
	switch m {
	case Ask:
		return "ask"
	case Auto:
		return "auto"
	default:
		return "rules"
	}
}

// ParseMode reads a mode's name (String).
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "rules", "":
		return Rules, nil
	case "ask":
		return Ask, nil
	case "auto":
		return Auto, nil
	}
	return Rules, fmt.Errorf("approval mode %q is not known: use ask, rules or auto", s)
}
