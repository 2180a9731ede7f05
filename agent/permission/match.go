package permission

import (
	"os"
	"path/filepath"
	"slices"
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
		abs = ws + "/" + abs // not cleaned: ".." is taken after links
	}
	abs, _ = resolveIn(abs, ws)
	ws = resolve(ws)
	if rel, err := filepath.Rel(ws, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(abs)
}

// resolve follows symbolic links in the clean absolute path p as far as
// it exists; /proc/self/cwd is taken to be the workspace-less process's
// own folder (see resolveIn).
func resolve(p string) string {
	r, _ := resolveIn(p, "")
	return r
}

// maxLinks is the most symbolic links resolveIn follows, as Linux's
// path walk (ELOOP past 40).
const maxLinks = 40

// resolveIn resolves the absolute path p the way the kernel walks it for
// a process whose current folder is cwd: one component at a time, each
// symbolic link replaced by its target before the next component (so
// "link/../x" is x beside the link's target, not beside the link), ".."
// taken after that; the rest of a path that does not exist is joined
// lexically. /proc/self/cwd and /proc/thread-self/cwd (and /dev/fd/../cwd,
// which is the same) are cwd, their root is /; the cwd or root of another
// process, and anything reached through an open descriptor
// (/proc/self/fd/N/...), cannot be known: ok is false then. With cwd ""
// those are followed as this process sees them.
func resolveIn(p, cwd string) (real string, ok bool) {
	comps := strings.Split(filepath.ToSlash(p), "/")
	cur := "/"
	links := 0
	for i := 0; i < len(comps); i++ {
		c := comps[i]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		if cur == "/proc" && cwd != "" {
			rest, known, special := procPath(c, comps[i+1:], cwd)
			if !known {
				return p, false
			}
			if special {
				comps, i, cur = rest, -1, "/"
				continue
			}
		}
		next := filepath.Join(cur, c)
		info, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(next, filepath.Join(comps[i+1:]...)), true
		}
		if info.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return p, false
		}
		target, err := os.Readlink(next)
		if err != nil {
			return p, false
		}
		if !filepath.IsAbs(target) {
			target = cur + "/" + target
		}
		comps, i, cur = append(strings.Split(filepath.ToSlash(target), "/"), comps[i+1:]...), -1, "/"
	}
	return cur, true
}

// procPath reads the component after /proc (proc) and those that follow
// (rest) for a process in folder cwd: special when they lead to a
// process's cwd or root, with the path to walk instead; known is false
// when the path leads to another process's folders or through an open
// descriptor, which only the running command could tell.
func procPath(proc string, rest []string, cwd string) (walk []string, known, special bool) {
	self := proc == "self" || proc == "thread-self"
	rest = slices.DeleteFunc(slices.Clone(rest), func(c string) bool { return c == "" || c == "." })
	// fd, task and the like are folders: "fd/.." is /proc/self again.
	for len(rest) > 1 && rest[1] == ".." && !slices.Contains([]string{"cwd", "root", "exe"}, rest[0]) && rest[0] != ".." {
		rest = rest[2:]
	}
	j := 0
	if len(rest) > 1 && rest[0] == "task" {
		j = 2 // /proc/PID/task/TID/...
	}
	if j >= len(rest) {
		return nil, true, false
	}
	if !self && !isDigits(proc) {
		return nil, true, false
	}
	switch rest[j] {
	case "cwd":
		if !self {
			return nil, false, false
		}
		return append(strings.Split(filepath.ToSlash(cwd), "/"), rest[j+1:]...), true, true
	case "root":
		if !self {
			return nil, false, false
		}
		return append([]string{""}, rest[j+1:]...), true, true
	case "fd", "map_files":
		if len(rest) > j+2 {
			return nil, false, false
		}
	}
	return nil, true, false
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
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
