package apigen

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Everything taken from a server (names, descriptions, enum values,
// defaults) reaches the generated source only through the functions in this
// file, which produce inert Python: string literals with every quote,
// backslash and unprintable character escaped.

// escapeRune writes r as a Python escape when it could end or alter a
// string literal or hide in the source: quotes, backslashes, control and
// format characters, line and paragraph separators.
func escapeRune(b *strings.Builder, r rune, keepNewline bool) {
	switch {
	case r == '\\':
		b.WriteString(`\\`)
	case r == '"':
		b.WriteString(`\"`)
	case r == '\n' && keepNewline:
		b.WriteByte('\n')
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\r':
		b.WriteString(`\r`)
	case r == '\t':
		b.WriteString(`\t`)
	case r == utf8.RuneError:
		b.WriteString(`\ufffd`)
	case r < 0x80 && !unicode.IsPrint(r):
		fmt.Fprintf(b, `\x%02x`, r)
	case r >= 0x80 && (!unicode.IsPrint(r) || unicode.Is(unicode.Cf, r)):
		if r > 0xffff {
			fmt.Fprintf(b, `\U%08x`, r)
		} else {
			fmt.Fprintf(b, `\u%04x`, r)
		}
	default:
		b.WriteRune(r)
	}
}

// pyString returns s as a double-quoted Python string literal.
func pyString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range strings.ToValidUTF8(s, "\ufffd") {
		escapeRune(&b, r, false)
	}
	b.WriteByte('"')
	return b.String()
}

// docstring returns text as a triple-quoted docstring whose continuation
// lines are indented by indent. No quote in it is left unescaped, so it
// cannot close early.
func docstring(text, indent string) string {
	text = strings.TrimSpace(strings.ReplaceAll(strings.ToValidUTF8(text, "\ufffd"), "\r\n", "\n"))
	var b strings.Builder
	b.WriteString(`"""`)
	for _, r := range text {
		escapeRune(&b, r, true)
		if r == '\n' {
			b.WriteString(indent)
		}
	}
	b.WriteString(`"""`)
	// Indent-only lines are noise.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// pyLiteral returns a JSON value (decoded with UseNumber) as a Python
// literal: None, True/False, numbers, strings, lists and dicts.
func pyLiteral(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "None", nil
	case bool:
		if v {
			return "True", nil
		}
		return "False", nil
	case json.Number:
		// The JSON decoder validated it: digits, sign, point and exponent
		// only, all valid in Python.
		s := v.String()
		if strings.ContainsFunc(s, func(r rune) bool { return !strings.ContainsRune("0123456789+-.eE", r) }) {
			return "", fmt.Errorf("not a number: %q", s)
		}
		return s, nil
	case float64:
		return fmt.Sprint(v), nil
	case string:
		return pyString(v), nil
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			s, err := pyLiteral(e)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		parts := make([]string, len(keys))
		for i, k := range keys {
			s, err := pyLiteral(v[k])
			if err != nil {
				return "", err
			}
			parts[i] = pyString(k) + ": " + s
		}
		return "{" + strings.Join(parts, ", ") + "}", nil
	}
	return "", fmt.Errorf("unexpected JSON value %T", v)
}
