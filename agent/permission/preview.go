package permission

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Preview is what a rule would allow, shown before it is saved: in words,
// whether it covers the call it is made for, and example calls it allows
// and similar ones it does not. Every example is checked with the rule by
// the same matching the manager uses, so what is shown is what happens.
type Preview struct {
	Rule Rule `json:"rule"`
	// Problem says why the pattern is no valid rule ("" when it is).
	Problem string `json:"problem,omitempty"`
	// Summary says in words what the rule allows.
	Summary string `json:"summary"`
	// CoversCall is set when the rule allows the call it is made for.
	CoversCall bool `json:"covers_call"`
	// Matches are calls like it that the rule allows too, Misses similar
	// ones it does not (as the text of the call: a command, "tool path",
	// a tool name).
	Matches []string `json:"matches"`
	Misses  []string `json:"misses"`
}

// maxExamples bounds each list of examples.
const maxExamples = 5

// PreviewPattern previews the rule ParsePattern makes of pattern for call
// c, as an Always or Session answer would save it.
func (m *Manager) PreviewPattern(pattern string, c Call) Preview {
	r := ParsePattern(strings.TrimSpace(pattern), c)
	p := m.PreviewRule(r)
	p.CoversCall = p.Problem == "" && m.withOnly(r).Check(c) == Allow
	own := callText(c, m.workspace)
	p.Matches = slices.DeleteFunc(p.Matches, func(s string) bool { return s == own })
	p.Misses = slices.DeleteFunc(p.Misses, func(s string) bool { return s == own })
	return p
}

// PreviewRule previews a rule written in the permissions editor.
func (m *Manager) PreviewRule(r Rule) Preview {
	p := Preview{Rule: r, Matches: []string{}, Misses: []string{}}
	if err := r.validate(); err != nil {
		p.Problem = err.Error()
		return p
	}
	p.Summary = summary(r)
	what := m.withOnly(r)
	seen := map[string]bool{}
	for _, c := range candidates(r) {
		text := callText(c, m.workspace)
		if seen[text] {
			continue
		}
		seen[text] = true
		if what.Check(c) == Allow {
			if len(p.Matches) < maxExamples {
				p.Matches = append(p.Matches, text)
			}
		} else if len(p.Misses) < maxExamples {
			p.Misses = append(p.Misses, text)
		}
	}
	return p
}

// withOnly returns a manager with m's ask rules and protected files and r
// as its only allow rule: what it allows is what r allows.
func (m *Manager) withOnly(r Rule) *Manager {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return &Manager{
		workspace: m.workspace, file: m.file, tomlFile: m.tomlFile,
		always:    Rules{Ask: slices.Clone(m.always.Ask), Allow: []Rule{r}},
		imported:  Rules{Ask: slices.Clone(m.imported.Ask)},
		protected: slices.Clone(m.protected), walkLimit: m.walkLimit,
	}
}

// summary says what r allows in words.
func summary(r Rule) string {
	tools := "the tool " + r.ToolName
	if strings.ContainsAny(r.ToolName, "*?[") {
		tools = "tools matching " + r.ToolName
	}
	switch r.Type {
	case TypeCodeAction:
		return "Every code action, whatever its code."
	case TypeShellAction:
		what := "Shell commands"
		if r.ToolName == ShellMagicTool {
			what = "Shell cells (%%bash and the like)"
		}
		return fmt.Sprintf("%s matching %q as a whole; each command of a line is checked on its own, and one that writes files is asked unless the pattern names how.", what, r.Command)
	case TypeFileRead, TypeFileWrite, TypeFileEdit:
		verb := map[string]string{TypeFileRead: "Reading", TypeFileWrite: "Writing", TypeFileEdit: "Editing"}[r.Type]
		where := "paths matching " + r.Path + " (relative to the workspace)"
		if path.IsAbs(r.Path) {
			where = "paths matching " + r.Path + " (outside the workspace)"
		}
		return fmt.Sprintf("%s files with %s at %s.", verb, tools, where)
	default:
		return fmt.Sprintf("Calls of %s, whatever their arguments.", tools)
	}
}

// callText is how a preview shows a call.
func callText(c Call, ws string) string {
	switch {
	case c.Type == TypeShellAction:
		return c.Command
	case isFileType(c.Type):
		return c.ToolName + " " + NormalizePath(c.Path, ws)
	}
	return c.ToolName
}

// samples fill a wildcard of a pattern.
var samples = []string{"README.md", "-v", "src/main.py", ""}

// fill replaces each wildcard of a glob with s.
func fill(pattern, s string) string {
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '*':
			b.WriteString(s)
		case '?':
			b.WriteByte('x')
		case '[':
			// A class: its first member ([*] is a literal *).
			j := strings.IndexByte(pattern[i+1:], ']')
			if j < 0 {
				b.WriteByte('[')
				continue
			}
			class := strings.TrimPrefix(pattern[i+1:i+1+j], "!")
			if j == 0 || strings.HasPrefix(pattern[i+1:], "!") {
				b.WriteByte('z')
			} else {
				b.WriteByte(class[0])
			}
			i += j + 1
		default:
			b.WriteByte(pattern[i])
		}
	}
	return b.String()
}

// candidates are calls near the rule: its patterns filled with samples,
// and variants of them that a careless reading might think it allows.
func candidates(r Rule) []Call {
	if r.Type == TypeCodeAction {
		// Code runs through one tool: variants of its name would be tools
		// that do not exist.
		return nil
	}
	tools := []string{fill(r.ToolName, "create_issue"), fill(r.ToolName, "x")}
	if i := strings.IndexAny(r.ToolName, "*?["); i > 0 {
		tools = append(tools, r.ToolName[:i]+"delete_all")
	} else if i := strings.IndexByte(r.ToolName, '_'); i > 0 {
		tools = append(tools, r.ToolName[:i]+"_delete_all")
	}
	var out []Call
	switch {
	case r.Type == TypeShellAction:
		var cmds []string
		for _, s := range samples {
			cmds = append(cmds, strings.TrimSpace(fill(r.Command, s)))
		}
		words := strings.Fields(fill(r.Command, ""))
		if len(words) > 1 {
			cmds = append(cmds, words[0]+" status", strings.Join(words, " ")+" notes.txt", strings.Join(words, " ")+" > out.txt")
		}
		if len(words) > 0 {
			cmds = append(cmds, words[0], "sudo "+strings.Join(words, " "), words[0]+" --version")
		}
		for _, c := range cmds {
			out = append(out, Call{Type: r.Type, ToolName: fill(r.ToolName, ""), Command: c})
		}
	case isFileType(r.Type):
		var paths []string
		base := strings.NewReplacer("**", "*").Replace(r.Path)
		for _, s := range []string{"notes.txt", "src/main.py", ""} {
			paths = append(paths, fill(base, s))
		}
		dir := path.Dir(fill(base, "x"))
		paths = append(paths, path.Join(dir, "sub", "deep.txt"), path.Join(dir, ".env"), "README.md", "/etc/passwd")
		for _, p := range paths {
			if p == "" || p == "." {
				continue
			}
			for _, t := range tools[:1] {
				out = append(out, Call{Type: r.Type, ToolName: t, Path: p})
			}
		}
		out = append(out, Call{Type: r.Type, ToolName: "other_tool", Path: fill(base, "notes.txt")})
	default:
		for _, t := range tools {
			out = append(out, Call{Type: r.Type, ToolName: t})
		}
		out = append(out, Call{Type: r.Type, ToolName: "other_tool"})
	}
	return out
}
