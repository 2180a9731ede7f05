// Package visible owns how model-written text is shown where a person
// approves it: every character that could hide, reorder or overwrite other
// text is replaced by a visible escape, so what the person reads is what
// runs. frontend/src/lib/render/visible.ts applies the same rules in the
// GUI; testdata/escaped.json pins the characters both escape.
package visible

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hidden reports whether r is shown as an escape: a control character
// other than tab and newline (C0, DEL, C1: carriage return, escape
// sequences, backspace), a format character (Cf: bidirectional controls
// such as U+202E, zero-width characters, the byte order mark, tags), a
// line or paragraph separator, any other default-ignorable code point
// (U+034F, Hangul fillers...) or a variation selector.
func Hidden(r rune) bool {
	if r == '\t' || r == '\n' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp,
		unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
}

// String returns s with each hidden character (see Hidden) written as an
// escape: \r for a carriage return, \xHH for other C0 controls and DEL,
// \uHHHH or \u{HHHHH} for the rest; bytes that are not UTF-8 become \xHH.
// Tabs, newlines and all other characters stay as they are.
func String(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r == utf8.RuneError || Hidden(r) })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case Hidden(r):
			b.WriteString(Escape(r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Line is String for text shown on one line, such as a file name or a
// prompt in a list: newlines and tabs are escaped as well (\n, \t), so a
// name cannot add lines of its own to a plan the user confirms.
func Line(s string) string {
	s = String(s)
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(s)
}

// Escape returns the escape String writes for r.
func Escape(r rune) string {
	switch {
	case r == '\r':
		return `\r`
	case r < 0x20 || r == 0x7f:
		return fmt.Sprintf(`\x%02x`, r)
	case r > 0xffff:
		return fmt.Sprintf(`\u{%x}`, r)
	default:
		return fmt.Sprintf(`\u%04x`, r)
	}
}
