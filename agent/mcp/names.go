package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// MaxNameLen is the longest function name the model APIs accept.
const MaxNameLen = 64

// ModelName is the name a tool is offered to the model under:
// "<server>_<tool>", with every character other than ASCII letters, digits,
// "_" and "-" replaced by "_", a leading "_" when it would not start with a
// letter or "_", and names over MaxNameLen characters cut short and ended
// by a hash of the full name, so distinct long names stay distinct.
func ModelName(server, tool string) string {
	full := server + "_" + tool
	var b strings.Builder
	for _, r := range full {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if c := s[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
		s = "_" + s
	}
	if len(s) > MaxNameLen {
		sum := sha256.Sum256([]byte(full))
		s = s[:MaxNameLen-9] + "_" + hex.EncodeToString(sum[:4])
	}
	return s
}

// ModelNames maps each tool's model name to the tool. Names taken by an
// earlier tool (in server, tool order) or reserved (built-in tools) get a
// numeric suffix.
func ModelNames(tools []Tool, reserved func(string) bool) map[string]Tool {
	sorted := slices.Clone(tools)
	slices.SortFunc(sorted, func(a, b Tool) int {
		if c := strings.Compare(a.Server, b.Server); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	out := make(map[string]Tool, len(sorted))
	taken := func(name string) bool {
		_, ok := out[name]
		return ok || (reserved != nil && reserved(name))
	}
	for _, t := range sorted {
		base := ModelName(t.Server, t.Name)
		name := base
		for i := 2; taken(name); i++ {
			suffix := fmt.Sprintf("_%d", i)
			name = base[:min(len(base), MaxNameLen-len(suffix))] + suffix
		}
		out[name] = t
	}
	return out
}
