package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"sort"
	"strings"
)

// Env looks variables up in the process environment first, then in the
// workspace's .env file, then in any fallback (API keys stored by the app):
// a later source never overrides a variable set by an earlier one.
type Env struct {
	lookup  func(string) (string, bool) // the process environment
	layers  []map[string]string         // .env, then fallbacks
	dotFile string
}

// NewEnv returns an Env over lookup (os.LookupEnv for the process) and the
// variables of a .env file.
func NewEnv(lookup func(string) (string, bool), dotenv map[string]string, dotFile string) Env {
	return Env{lookup: lookup, layers: []map[string]string{dotenv}, dotFile: dotFile}
}

// WithFallback returns an Env that also finds the variables of m (such as
// the API keys stored with AppStore.SetAPIKey) when nothing else sets them.
func (e Env) WithFallback(m map[string]string) Env {
	e.layers = append(append([]map[string]string(nil), e.layers...), m)
	return e
}

// Lookup returns a variable's value and whether it is set.
func (e Env) Lookup(name string) (string, bool) {
	if e.lookup != nil {
		if v, ok := e.lookup(name); ok {
			return v, true
		}
	}
	for _, m := range e.layers {
		if v, ok := m[name]; ok {
			return v, true
		}
	}
	return "", false
}

// FirstNonEmpty returns the first value of name that is not empty, in the
// order of Lookup: for API keys, where a variable set to "" (an empty
// export in a shell profile) must not hide a key stored elsewhere.
func (e Env) FirstNonEmpty(name string) string {
	if e.lookup != nil {
		if v, ok := e.lookup(name); ok && v != "" {
			return v
		}
	}
	for _, m := range e.layers {
		if v := m[name]; v != "" {
			return v
		}
	}
	return ""
}

// Getenv returns a variable's value, "" when unset.
func (e Env) Getenv(name string) string {
	v, _ := e.Lookup(name)
	return v
}

// Extra returns the variables from .env and the fallbacks that the process
// environment does not set, as sorted NAME=value entries to add to a
// child process's environment.
func (e Env) Extra() []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range e.layers {
		for k, v := range m {
			if seen[k] {
				continue
			}
			seen[k] = true
			if e.lookup != nil {
				if _, set := e.lookup(k); set {
					continue
				}
			}
			out = append(out, k+"="+v)
		}
	}
	sort.Strings(out)
	return out
}

var varRef = regexp.MustCompile(`\$\{([^}]*)\}`)
var varName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Expand replaces each ${VAR} in s. A reference to an unset variable or a
// malformed one is an error naming it.
func (e Env) Expand(s string) (string, error) {
	var err error
	out := varRef.ReplaceAllStringFunc(s, func(ref string) string {
		name := ref[2 : len(ref)-1]
		if !varName.MatchString(name) {
			err = errors.Join(err, fmt.Errorf("%s is not a valid variable reference (use ${NAME} with letters, digits and _)", ref))
			return ref
		}
		v, ok := e.Lookup(name)
		if !ok {
			where := "in the environment"
			if e.dotFile != "" {
				where += " or in " + e.dotFile
			}
			err = errors.Join(err, fmt.Errorf("%s is not set (set %s %s)", ref, name, where))
			return ref
		}
		return v
	})
	return out, err
}

// ReadDotEnv reads a .env file: NAME=value lines, optionally starting with
// "export ", values optionally in single quotes (taken literally) or double
// quotes (with \n, \t, \" and \\ escapes); # starts a comment on its own
// line or after an unquoted value. A missing file is empty.
func ReadDotEnv(file string) (map[string]string, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	return ParseDotEnv(data, file)
}

// ParseDotEnv parses .env content; see ReadDotEnv.
func ParseDotEnv(data []byte, file string) (map[string]string, error) {
	vars := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		name, value, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !ok || !varName.MatchString(name) {
			return nil, fmt.Errorf("%s:%d: %q is not a NAME=value line", file, n, clipString(line))
		}
		v, err := dotEnvValue(strings.TrimSpace(value))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %w", file, n, name, err)
		}
		vars[name] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	return vars, nil
}

func dotEnvValue(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	switch q := v[0]; q {
	case '\'', '"':
		end := -1
		for i := 1; i < len(v); i++ {
			if q == '"' && v[i] == '\\' {
				i++
				continue
			}
			if v[i] == q {
				end = i
				break
			}
		}
		if end < 0 {
			return "", fmt.Errorf("the value has no closing %c", q)
		}
		if rest := strings.TrimSpace(v[end+1:]); rest != "" && !strings.HasPrefix(rest, "#") {
			return "", fmt.Errorf("unexpected text %q after the quoted value", rest)
		}
		inner := v[1:end]
		if q == '"' {
			inner = strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\"`, `"`, `\\`, `\`).Replace(inner)
		}
		return inner, nil
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return v, nil
}

func clipString(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
