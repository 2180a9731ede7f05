package hooks

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// A handler's "if" narrows it, in Claude Code, to the tool calls a
// permission rule would match: "Bash(git *)", "Write(.env*)", "Edit". A
// condition freeact cannot read is an error at load, never ignored: an
// ignored condition would make a handler fire (and allow or deny) where
// its author did not mean it to.
type cond struct {
	tool    string
	pattern string
	has     bool // a pattern in parentheses
}

var condForm = regexp.MustCompile(`^([A-Za-z0-9_*-]+)(?:\((.*)\))?$`)

func parseCond(s string) (*cond, error) {
	if s == "" {
		return nil, nil
	}
	m := condForm.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return nil, fmt.Errorf("\"if\" %q is not of the form Tool or Tool(pattern)", s)
	}
	c := &cond{tool: m[1], pattern: m[2], has: strings.Contains(s, "(")}
	if c.has {
		switch c.tool {
		case ToolBash, ToolRead, ToolWrite, ToolEdit:
		default:
			return nil, fmt.Errorf("\"if\" %q: freeact reads patterns for Bash, Read, Write and Edit only", s)
		}
		if c.tool != ToolBash {
			if _, err := path.Match(c.pattern, ""); err != nil {
				return nil, fmt.Errorf("\"if\" %q: %w", s, err)
			}
		}
	}
	return c, nil
}

// matches reports whether the call in in is one c covers; dir is the
// project folder file patterns with a / are relative to.
func (c *cond) matches(in Input, dir string) bool {
	if c == nil {
		return true
	}
	if c.tool != "*" && c.tool != in.ToolName {
		return false
	}
	if !c.has {
		return true
	}
	var fields struct {
		Command  string `json:"command"`
		FilePath string `json:"file_path"`
	}
	if json.Unmarshal(in.ToolInput, &fields) != nil {
		return false
	}
	if c.tool == ToolBash {
		return globAll(c.pattern, fields.Command)
	}
	p := fields.FilePath
	if !strings.Contains(c.pattern, "/") {
		ok, _ := path.Match(c.pattern, filepath.Base(p))
		return ok
	}
	pat := c.pattern
	if strings.HasPrefix(pat, "/") && dir != "" {
		pat = filepath.Join(dir, pat)
	}
	ok, _ := path.Match(pat, p)
	return ok
}

// globAll matches s against a pattern whose * matches any run of
// characters, spaces included ("git *"; "npm run test:*" in the older
// prefix form).
func globAll(pattern, s string) bool {
	pattern = strings.TrimSuffix(pattern, ":*") + map[bool]string{true: "*", false: ""}[strings.HasSuffix(pattern, ":*")]
	re := "^" + strings.ReplaceAll(regexp.QuoteMeta(pattern), `\*`, ".*") + "$"
	ok, _ := regexp.MatchString(re, s)
	return ok
}
