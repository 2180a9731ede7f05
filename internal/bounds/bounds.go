// Package bounds owns the limits of a number setting: whether a value is
// inside them, and how to say what a valid value looks like. agent/config
// and agent/model describe their keys with it, so the settings forms, the
// errors of a file and the checks all speak the same words.
package bounds

import (
	"fmt"
	"math"
	"strconv"
)

// Number is the range of a number setting. The zero value takes any finite
// number.
type Number struct {
	// Min and Max bound the value when set; MinExclusive makes Min itself
	// invalid (a positive number: Min 0, exclusive).
	Min          *float64 `json:"min,omitempty"`
	Max          *float64 `json:"max,omitempty"`
	MinExclusive bool     `json:"min_exclusive,omitempty"`
	// Integer asks for a whole number.
	Integer bool `json:"integer,omitempty"`
	// Unit is what the number counts, plural ("seconds", "bytes").
	Unit string `json:"unit,omitempty"`
}

// V returns a pointer to v, for Min and Max.
func V(v float64) *float64 { return &v }

// Contains reports whether v is a valid value.
func (n Number) Contains(v float64) bool {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return false
	case n.Integer && v != math.Trunc(v):
		return false
	case n.Min != nil && (v < *n.Min || n.MinExclusive && v == *n.Min):
		return false
	case n.Max != nil && v > *n.Max:
		return false
	}
	return true
}

// Want says what a valid value looks like: "a positive number of seconds",
// "a whole number, 1 or more", "a number of USD between 0.1 and 1".
func (n Number) Want() string {
	what := "a number"
	if n.Integer {
		what = "a whole number"
	}
	if n.Min != nil && *n.Min == 0 && n.MinExclusive && n.Max == nil {
		what = "a positive number"
		if n.Integer {
			what = "a positive whole number"
		}
	}
	if n.Unit != "" {
		what += " of " + n.Unit
	}
	switch {
	case n.Min != nil && *n.Min == 0 && n.MinExclusive && n.Max == nil:
		return what
	case n.Min != nil && n.Max != nil:
		return fmt.Sprintf("%s between %s and %s", what, f(*n.Min), f(*n.Max))
	case n.Min != nil && n.MinExclusive:
		return fmt.Sprintf("%s above %s", what, f(*n.Min))
	case n.Min != nil:
		return fmt.Sprintf("%s, %s or more", what, f(*n.Min))
	case n.Max != nil:
		return fmt.Sprintf("%s, %s or less", what, f(*n.Max))
	}
	return what
}

func f(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
