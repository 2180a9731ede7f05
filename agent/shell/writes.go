package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// WritesFiles reports whether command redirects output into a file (>,
// >>, >|, &>, &>>, <>) or redirects anything to or from bash's network
// pseudo-files (/dev/tcp/..., /dev/udp/...), so that a rule written for a
// read-only command does not also allow it to overwrite files or talk to
// the network. Duplicating a descriptor (2>&1) and
// writing to /dev/null, /dev/stdout or /dev/stderr do not count. A command
// that does not parse reports false: Split makes such a line opaque, which
// is never auto-allowed anyway.
func WritesFiles(command string) bool {
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return false
	}
	writes := false
	syntax.Walk(file, func(n syntax.Node) bool {
		r, ok := n.(*syntax.Redirect)
		if !ok || writes {
			return !writes
		}
		if target, static := staticValue(r.Word); !static && r.Op == syntax.RdrIn || static && isNetwork(target) {
			writes = true
			return false
		}
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.RdrAllClob,
			syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
			target, static := staticValue(r.Word)
			if !static || !harmlessTarget[target] {
				writes = true
			}
		case syntax.DplOut:
			// >&N duplicates a descriptor; >&file writes to a file.
			if target, static := staticValue(r.Word); !static || !isDescriptor(target) {
				writes = true
			}
		}
		return true
	})
	return writes
}

func isNetwork(target string) bool {
	return strings.HasPrefix(target, "/dev/tcp/") || strings.HasPrefix(target, "/dev/udp/")
}

var harmlessTarget = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true}

func isDescriptor(s string) bool {
	if s == "-" {
		return true // closes the descriptor
	}
	s = strings.TrimSuffix(s, "-") // N- moves the descriptor
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
