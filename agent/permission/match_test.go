package permission

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"git *", "git status", true},
		{"git status *", "git status", false}, // SPEC: the * needs the space before it
		{"git status *", "git status -s", true},
		{"git status", "git status", true},
		{"git status", "git status -s", false},
		{"cat *", "cat /etc/passwd", true}, // * matches / in names and commands
		{"cat *", "cat a\nb", true},        // and newlines (%%bash scripts)
		{"*", "", true},
		{"", "", true},
		{"", "x", false},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"a?c", "aéc", true}, // ? is one character, not one byte
		{"filesystem_*", "filesystem_read_text_file", true},
		{"filesystem_*", "github_search", false},
		{"pytools_list_*", "pytools_list_tools", true},
		{"[abc]x", "bx", true},
		{"[abc]x", "dx", false},
		{"[!abc]x", "dx", true},
		{"[!abc]x", "ax", false},
		{"[a-c]x", "bx", true},
		{"[a-c]x", "-x", false},
		{"[]]x", "]x", true},
		{"[*]", "*", true},
		{"[*]", "a", false},
		{"[", "[", true},     // an unterminated class is a literal [
		{"a[b", "a[b", true}, // likewise inside
		{"*[", "xx[", true},  // and after a star
		{"*a*b*", "xaybz", true},
		{"*a*b*", "xbya", false},
		{"**", "anything/at/all", true},
		{"rm *", "rm", false},
		{"ls", "lsblk", false},
	}
	for _, tt := range tests {
		if got := Glob(tt.pattern, tt.s); got != tt.want {
			t.Errorf("Glob(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

func TestEscapeGlob(t *testing.T) {
	for _, s := range []string{"ls *.py", "a?b", "[x]", "plain", "for f in *; do\n  echo $f\ndone"} {
		p := EscapeGlob(s)
		if !Glob(p, s) {
			t.Errorf("EscapeGlob(%q) = %q does not match its input", s, p)
		}
		if strings.ContainsAny(s, "*?") && Glob(p, s+"x") {
			t.Errorf("EscapeGlob(%q) = %q still matches other text", s, p)
		}
	}
}

// globRegexp translates a Glob pattern to a regular expression the way
// Python's fnmatch.translate does; it is the oracle for FuzzGlob.
func globRegexp(pattern string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`(?s)\A`)
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch c {
		case '*':
			b.WriteString(`.*`)
			i++
		case '?':
			b.WriteString(`.`)
			i++
		case '[':
			j := i + 1
			if j < len(pattern) && pattern[j] == '!' {
				j++
			}
			if j < len(pattern) && pattern[j] == ']' {
				j++
			}
			for j < len(pattern) && pattern[j] != ']' {
				j++
			}
			if j >= len(pattern) {
				b.WriteString(`\[`)
				i++
				continue
			}
			body := pattern[i+1 : j]
			neg := strings.HasPrefix(body, "!")
			if neg {
				body = body[1:]
			}
			// Escape everything but ranges; drop empty ranges like fnmatch.
			var class strings.Builder
			for k := 0; k < len(body); {
				r := []rune(body[k:])[0]
				n := len(string(r))
				if k+n+1 < len(body) && body[k+n] == '-' {
					hi := []rune(body[k+n+1:])[0]
					if hi >= r {
						class.WriteString(regexp.QuoteMeta(string(r)) + "-" + regexp.QuoteMeta(string(hi)))
					}
					k += n + 1 + len(string(hi))
					continue
				}
				if r == '\\' || r == ']' || r == '[' || r == '^' || r == '-' {
					class.WriteString(`\`)
				}
				class.WriteRune(r)
				k += n
			}
			switch {
			case class.Len() == 0 && neg:
				b.WriteString(`.`) // a negated empty set: any character
			case class.Len() == 0:
				b.WriteString(`[^\x00-\x{10FFFF}]`) // an empty set: nothing
			case neg:
				b.WriteString("[^" + class.String() + "]")
			default:
				b.WriteString("[" + class.String() + "]")
			}
			i = j + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
			i++
		}
	}
	b.WriteString(`\z`)
	return regexp.MustCompile(b.String())
}

func FuzzGlob(f *testing.F) {
	for _, seed := range [][2]string{
		{"git status *", "git status -s"}, {"git status *", "git status"}, {"a?c", "abc"},
		{"[!a-c]x", "dx"}, {"[]]", "]"}, {"[", "["}, {"*a*b*", "xaybz"}, {"[z-a]", "m"},
		{"**/.env", "a/.env"}, {"cat *", "cat a\nb"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if !isASCII(pattern) || !isASCII(s) || len(pattern) > 64 || len(s) > 64 {
			return // the oracle's rune handling differs only on invalid UTF-8
		}
		got := Glob(pattern, s)
		want := globRegexp(pattern).MatchString(s)
		if got != want {
			t.Fatalf("Glob(%q, %q) = %v, regexp oracle says %v", pattern, s, got, want)
		}
		if !Glob(EscapeGlob(s), s) {
			t.Fatalf("EscapeGlob(%q) does not match itself", s)
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func TestPathMatch(t *testing.T) {
	ws := filepath.FromSlash("/home/u/ws")
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"**", "src/a.py", true},
		{"**", "/home/u/ws/src/a.py", true}, // absolute inside: compared relative
		{"**", "/etc/passwd", false},        // relative pattern, path outside
		{"**", "../other/x", false},         // relative path leaving the workspace
		{"**", "src/../../other/x", false},
		{"**", "./src/a.py", true},
		{"**/.env", ".env", true},
		{"**/.env", "a/b/.env", true},
		{"**/.env", "/home/u/ws/.env", true},
		{"**/.env", "a/.envrc", false},
		{"src/*", "src/a.py", true},
		{"src/*", "src/sub/a.py", false}, // * stays inside one folder
		{"src/**", "src/sub/a.py", true},
		{"/**", "/etc/passwd", true}, // absolute pattern: outside paths
		{"/**", "src/a.py", false},   // never inside ones
		{"/etc/*", "/etc/passwd", true},
		{"/home/u/ws/**", "/home/u/ws/a", false}, // inside paths are relative
		{"*.{py,go}", "a.go", true},              // doublestar alternatives
		{"", "a", false},
		{"**", "", false},
	}
	for _, tt := range tests {
		if got := PathMatch(tt.pattern, filepath.FromSlash(tt.path), ws); got != tt.want {
			t.Errorf("PathMatch(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func FuzzPathMatch(f *testing.F) {
	for _, seed := range [][2]string{
		{"**", "src/a.py"}, {"**", "/etc/passwd"}, {"**/.env", ".env"}, {"src/*", "src/a/b"},
		{"/**", "/x"}, {"**", "../x"}, {"{a,b}/*", "a/x"}, {"[", "["},
	} {
		f.Add(seed[0], seed[1])
	}
	ws := filepath.FromSlash("/ws")
	f.Fuzz(func(t *testing.T, pattern, p string) {
		got := PathMatch(pattern, p, ws)
		norm := NormalizePath(p, ws)
		if got && !strings.HasPrefix(pattern, "/") && strings.HasPrefix(norm, "/") {
			t.Fatalf("relative pattern %q matched %q outside the workspace", pattern, p)
		}
		if got && strings.HasPrefix(pattern, "/") && !strings.HasPrefix(norm, "/") {
			t.Fatalf("absolute pattern %q matched %q inside the workspace", pattern, p)
		}
	})
}
