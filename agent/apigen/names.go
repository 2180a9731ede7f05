package apigen

import (
	"fmt"
	"slices"
	"strings"
)

// pythonKeywords are the names Python's grammar reserves; a module or
// attribute named like one cannot be imported or used.
var pythonKeywords = []string{
	"False", "None", "True", "and", "as", "assert", "async", "await", "break",
	"class", "continue", "def", "del", "elif", "else", "except", "finally",
	"for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
	"not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
}

// ModuleName maps a server or tool name to the Python module name it gets:
// lower-case ASCII letters, digits and underscores; every other character
// becomes "_"; a leading digit gets a "_" before it; keywords and the
// package files' own names (__init__, __main__) get a "_" after them. The
// mapping is deterministic; distinct names may map to the same module, which
// Generate resolves with numeric suffixes.
func ModuleName(name string) string {
	return identifier(strings.ToLower(name), true)
}

// identifier maps name to a valid ASCII Python identifier, keeping its
// case unless lower is set (the caller lower-cased it already).
func identifier(name string, module bool) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	switch {
	case s == "":
		s = "_"
	case s[0] >= '0' && s[0] <= '9':
		s = "_" + s
	}
	if slices.Contains(pythonKeywords, s) || (module && (s == "__init__" || s == "__main__")) {
		s += "_"
	}
	return s
}

// unique returns base, or base with the smallest numeric suffix from 2 up
// that is not in taken; the result is added to taken.
func unique(base string, taken map[string]bool) string {
	name := base
	for i := 2; taken[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	taken[name] = true
	return name
}

// ModuleNames maps the tool names of one server to module names, resolving
// collisions deterministically: names are taken in sorted order and a name
// whose module is taken gets the next free numeric suffix.
func ModuleNames(names []string) map[string]string {
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	taken := map[string]bool{}
	out := make(map[string]string, len(sorted))
	for _, n := range sorted {
		out[n] = unique(ModuleName(n), taken)
	}
	return out
}

// camel turns a field name into a part of a class name: "max_results" ->
// "MaxResults".
func camel(name string) string {
	var b strings.Builder
	up := true
	for _, r := range identifier(name, false) {
		if r == '_' {
			up = true
			continue
		}
		if up && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		up = false
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return "Field"
	}
	return b.String()
}
