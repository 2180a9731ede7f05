// Package redact hides the secrets a URL can carry (user:password@ and
// query values such as ?token=) wherever a URL is shown: in errors,
// events, logs. URL redacts one URL; Text every URL inside a message.
package redact

import (
	"regexp"
	"strings"
)

// hidden replaces a secret.
const hidden = "***"

// URL returns raw with its userinfo and the values of its query and its
// fragment replaced by ***: "https://u:p@h/x?token=abc&b=1#k" becomes
// "https://***@h/x?token=***&b=***#***". Text that is not a URL is
// returned with everything after a ? or # hidden. It never fails.
func URL(raw string) string {
	rest := raw
	scheme := ""
	if i := strings.Index(rest, "://"); i > 0 {
		scheme, rest = rest[:i+3], rest[i+3:]
	}
	// The authority ends at the first /, ? or #; userinfo is before its
	// last @.
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if at := strings.LastIndex(rest[:end], "@"); at >= 0 && scheme != "" {
		rest = hidden + rest[at:]
	}
	out := scheme
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		out += rest[:i]
		rest = rest[i:]
	} else {
		return out + rest
	}
	query, frag, hasFrag := strings.Cut(rest, "#")
	if strings.HasPrefix(query, "?") {
		var parts []string
		for _, kv := range strings.Split(query[1:], "&") {
			k, _, _ := strings.Cut(kv, "=")
			if k == "" && kv == "" {
				continue
			}
			parts = append(parts, k+"="+hidden)
		}
		out += "?" + strings.Join(parts, "&")
	}
	if hasFrag && frag != "" {
		out += "#" + hidden
	}
	return out
}

// urlRE finds URLs in text: a scheme, ://, then anything up to white
// space or a quote or bracket that ends it in prose and in Go's %q.
var urlRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>` + "`" + `]+`)

// Text returns s with every URL in it redacted as URL does.
func Text(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlRE.ReplaceAllStringFunc(s, URL)
}
