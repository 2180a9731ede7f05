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

// maxSuffix bounds the numeric suffixes ModelNames tries on a name.
const maxSuffix = 100

// ModelNames maps each tool's model name to the tool. Names taken by an
// earlier tool (in server, tool order) or reserved (built-in tools) get a
// numeric suffix (_2, _3, ... up to _100). A name that stays taken
// whatever its suffix (the built-in file tools reserve every name starting
// "filesystem_", so a server named "filesystem" can take none) is tried
// with "mcp_" before it instead: "mcp_filesystem_read_file". A tool left with no free
// name after a bounded number of tries is left out and returned in
// unnamed, so the caller can say so; the search always ends.
func ModelNames(tools []Tool, reserved func(string) bool) (named map[string]Tool, unnamed []Tool) {
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
		if name, ok := freeName(t, taken); ok {
			out[name] = t
		} else {
			unnamed = append(unnamed, t)
		}
	}
	return out, unnamed
}

// freeName is the first name of t that is not taken: its model name, then
// with the suffixes _2 to _maxSuffix, then the same with "mcp_" before the
// server's name.
func freeName(t Tool, taken func(string) bool) (string, bool) {
	for _, b := range []string{ModelName(t.Server, t.Name), ModelName("mcp_"+t.Server, t.Name)} {
		if !taken(b) {
			return b, true
		}
		for i := 2; i <= maxSuffix; i++ {
			suffix := fmt.Sprintf("_%d", i)
			if name := b[:min(len(b), MaxNameLen-len(suffix))] + suffix; !taken(name) {
				return name, true
			}
		}
	}
	return "", false
}
