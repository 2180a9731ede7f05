package permission

import (
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// matches reports whether rule r matches call c in workspace ws (an
// absolute, clean path).
func (r Rule) matches(c Call, ws string) bool {
	if r.Type != c.Type || !Glob(r.ToolName, c.ToolName) {
		return false
	}
	switch {
	case r.Type == TypeShellAction:
		return Glob(r.Command, c.Command)
	case isFileType(r.Type):
		return PathMatch(r.Path, c.Path, ws)
	default:
		return true
	}
}

// Glob reports whether s matches pattern as a whole, with the rules of
// Python's fnmatch (case-sensitive): * matches any text including / and
// newlines, ? one character, [abc], [a-z] and [!abc] one character of (or
// not of) a set. There is no escape character: write [*] for a literal *.
func Glob(pattern, s string) bool {
	// Iterative matching with backtracking to the last *.
	px, sx := 0, 0
	starP, starS := -1, -1
	for sx < len(s) {
		if px < len(pattern) {
			switch pattern[px] {
			case '*':
				starP, starS = px, sx
				px++
				continue
			case '?':
				_, n := utf8.DecodeRuneInString(s[sx:])
				px++
				sx += n
				continue
			case '[':
				r, n := utf8.DecodeRuneInString(s[sx:])
				if ok, width, valid := matchClass(pattern[px:], r); valid {
					if ok {
						px += width
						sx += n
						continue
					}
					break
				}
				// An unterminated [ is a literal character.
				if s[sx] == '[' {
					px++
					sx++
					continue
				}
			default:
				if pattern[px] == s[sx] {
					px++
					sx++
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		// Let the last * swallow one more character.
		_, n := utf8.DecodeRuneInString(s[starS:])
		starS += n
		px, sx = starP+1, starS
	}
	for px < len(pattern) && pattern[px] == '*' {
		px++
	}
	return px == len(pattern)
}

// matchClass matches r against the character class at the start of p
// ("[...]"). It returns whether r is in the class, the width of the class
// in p, and whether p starts with a complete class at all.
func matchClass(p string, r rune) (match bool, width int, valid bool) {
	i := 1
	negate := false
	if i < len(p) && (p[i] == '!') {
		negate = true
		i++
	}
	start := i
	for {
		if i >= len(p) {
			return false, 0, false
		}
		if p[i] == ']' && i > start {
			break
		}
		lo, n := utf8.DecodeRuneInString(p[i:])
		i += n
		hi := lo
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			hi, n = utf8.DecodeRuneInString(p[i+1:])
			i += 1 + n
		}
		if lo <= r && r <= hi {
			match = true
		}
	}
	return match != negate, i + 1, true
}

// EscapeGlob returns a pattern that Glob matches against s only.
func EscapeGlob(s string) string {
	if !strings.ContainsAny(s, "*?[") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ { // bytes: invalid UTF-8 must survive
		switch c := s[i]; c {
		case '*', '?', '[':
			b.WriteByte('[')
			b.WriteByte(c)
			b.WriteByte(']')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// escapePath returns a doublestar pattern that matches p only.
func escapePath(p string) string {
	var b strings.Builder
	p = filepath.ToSlash(p)
	for i := 0; i < len(p); i++ {
		if strings.IndexByte(`*?[]{}\`, p[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// NormalizePath returns p as rules see it: relative to the workspace ws
// (with forward slashes) when it lies inside it, else absolute. A relative
// p is taken relative to ws, so "../x" is a path outside it. Symbolic links
// are followed as far as the path exists, so a link inside the workspace
// that points outside it is outside, and a link to .env is .env.
func NormalizePath(p, ws string) string {
	if p == "" {
		return ""
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(ws, abs)
	}
	abs = resolve(filepath.Clean(abs))
	ws = resolve(ws)
	if rel, err := filepath.Rel(ws, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(abs)
}

// resolve follows symbolic links in the longest existing prefix of the
// clean absolute path p.
func resolve(p string) string {
	rest := ""
	for dir := p; ; {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// PathMatch reports whether the path p of a call in workspace ws matches
// pattern with doublestar semantics. Inside the workspace p is compared
// relative to it; a relative pattern never matches a path outside it and an
// absolute pattern never matches a path inside it.
func PathMatch(pattern, p, ws string) bool {
	if pattern == "" || p == "" {
		return false
	}
	return matchNorm(pattern, NormalizePath(p, ws))
}
