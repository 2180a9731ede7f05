// Package permission owns the approval rules of a workspace: the persisted
// .freeact/permissions.json, the grants of one conversation (Conversation),
// matching a tool call
// against them, and suggesting a rule and a display text for an approval
// prompt.
//
// A rule has the shape the Python freeact writes: the tool call's type and
// its fields, any of which may hold wildcards, e.g.
//
//	{"type": "ShellAction", "tool_name": "bash", "command": "git *"}
//
// Names and commands match by simple glob (* matches any text, / included;
// ? one character; [...] a character class). Paths match with
// bmatcuk/doublestar (* inside one folder, ** across folders) relative to
// the workspace; a relative pattern never matches a path outside it.
package permission

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/freeact/desktop/agent/shell"
)

// Call types, as written in the "type" field of a rule.
const (
	TypeCodeAction  = "CodeAction"
	TypeShellAction = "ShellAction"
	TypeGenericCall = "GenericCall"
	TypeFileRead    = "FileRead"
	TypeFileWrite   = "FileWrite"
	TypeFileEdit    = "FileEdit"
)

// Tool names of shell actions: a !cmd line (or one command split from it)
// and a whole %%bash / %%sh cell.
const (
	ShellTool      = "bash"
	ShellMagicTool = "shell_magic"
)

// Call is a tool call as the permission manager sees it: its type name and
// the fields rules match on. The agent adapts its typed calls to it.
type Call struct {
	Type     string // one of the Type* constants
	ToolName string
	Command  string // ShellAction: the command or %%bash script
	Path     string // FileRead, FileWrite, FileEdit: the path as given to the tool
	// Opaque marks a shell command that could not be split safely (see
	// agent/shell): it is never auto-allowed, only ask rules apply to it.
	Opaque bool
	// Dir is the absolute folder a shell command runs in (the kernel's
	// current folder when the line ran); "" is the workspace. Its relative
	// paths are taken from there.
	Dir string
}

// Rule is one permission rule: a call type and glob patterns for its fields.
// Command is used by ShellAction rules only, Path by file rules only.
type Rule struct {
	Type     string `json:"type"`
	ToolName string `json:"tool_name"`
	Command  string `json:"command,omitempty"`
	Path     string `json:"path,omitempty"`
}

func (r Rule) String() string {
	switch {
	case r.Type == TypeShellAction:
		return fmt.Sprintf("%s %s %q", r.Type, r.ToolName, r.Command)
	case isFileType(r.Type):
		return fmt.Sprintf("%s %s %s", r.Type, r.ToolName, r.Path)
	default:
		return r.Type + " " + r.ToolName
	}
}

// Pattern returns the rule in the text form an approval suggests and
// ParsePattern reads back: a shell rule's command, a file rule's tool name
// and path, any other rule's tool name.
func (r Rule) Pattern() string {
	switch {
	case r.Type == TypeShellAction:
		return r.Command
	case isFileType(r.Type):
		return r.ToolName + " " + r.Path
	default:
		return r.ToolName
	}
}

func isFileType(t string) bool {
	return t == TypeFileRead || t == TypeFileWrite || t == TypeFileEdit
}

// validate checks that r has the fields its type needs and no others.
func (r Rule) validate() error {
	switch r.Type {
	case TypeCodeAction, TypeGenericCall, TypeShellAction, TypeFileRead, TypeFileWrite, TypeFileEdit:
	case "":
		return fmt.Errorf(`"type" is missing; use one of CodeAction, ShellAction, GenericCall, FileRead, FileWrite, FileEdit`)
	default:
		return fmt.Errorf(`"type" %q is unknown; use one of CodeAction, ShellAction, GenericCall, FileRead, FileWrite, FileEdit`, r.Type)
	}
	if r.ToolName == "" {
		return fmt.Errorf(`%s rule needs "tool_name" (a glob such as "filesystem_*")`, r.Type)
	}
	if r.Type == TypeShellAction {
		if r.Command == "" {
			return fmt.Errorf(`ShellAction rule needs "command" (a glob such as "git status *")`)
		}
	} else if r.Command != "" {
		return fmt.Errorf(`"command" is only valid in ShellAction rules, not %s`, r.Type)
	}
	if isFileType(r.Type) {
		if r.Path == "" {
			return fmt.Errorf(`%s rule needs "path" (a pattern such as "src/**")`, r.Type)
		}
		// doublestar matches nothing with an invalid pattern: an ask rule
		// would silently never ask.
		if !doublestar.ValidatePattern(r.Path) {
			return fmt.Errorf(`"path" %q is not a valid pattern: close every [ with ] and every { with } (write \[ for a literal [)`, r.Path)
		}
	} else if r.Path != "" {
		return fmt.Errorf(`"path" is only valid in FileRead, FileWrite and FileEdit rules, not %s`, r.Type)
	}
	return nil
}

// subcommandTools are programs whose first argument is a subcommand, so a
// suggested rule keeps it: "git add *" rather than "git *".
var subcommandTools = map[string]bool{
	"git": true, "pip": true, "pip3": true, "uv": true, "npm": true, "pnpm": true,
	"yarn": true, "go": true, "cargo": true, "rustup": true, "docker": true,
	"podman": true, "kubectl": true, "helm": true, "apt": true, "apt-get": true, "dnf": true,
	"yum": true, "brew": true, "make": true, "conda": true, "poetry": true, "gh": true,
	"systemctl": true, "terraform": true, "dotnet": true, "gcloud": true, "aws": true, "az": true,
	"hatch": true, "pdm": true, "pixi": true, "bun": true, "deno": true, "nix": true,
}

// SuggestPattern proposes the pattern for a rule that would allow call and
// calls like it, in the text form ParsePattern reads back:
//   - a shell command: "cmd subcmd *" for tools with subcommands, else
//     "cmd *"; a command without arguments, or one that writes files in a
//     way such a rule would not cover (a redirection, sort -o, git
//     --output), is suggested as written;
//   - a %%bash script: the whole script, wildcards in it escaped;
//   - a file operation: "<tool_name> <path>", with wildcards in the path
//     escaped; give the path relative to the workspace (Manager.Suggest
//     does that), as rules compare paths inside it relative to it;
//   - anything else: the tool name.
func SuggestPattern(c Call) string {
	switch c.Type {
	case TypeShellAction:
		// A script, an opaque line or a command that redirects into files
		// is suggested exactly: "echo *" would not allow "echo x > f".
		if c.ToolName == ShellMagicTool || c.Opaque || shell.WritesFiles(c.Command) {
			return EscapeGlob(c.Command)
		}
		// Whitespace or quoting the heuristic does not expect: fall back
		// to the exact command, so the rule always matches this call.
		// A rule must name what makes a command write ("sort -o *").
		markers := writeMarkers(c.Command, shell.FileAccesses(c.Command, ""))
		if p := suggestShell(c.Command); Glob(p, c.Command) && uncovered(Rule{Command: p}, markers) == "" {
			return p
		}
		return EscapeGlob(c.Command)
	case TypeFileRead, TypeFileWrite, TypeFileEdit:
		return c.ToolName + " " + escapePath(c.Path)
	default:
		return c.ToolName
	}
}

func suggestShell(command string) string {
	command = strings.TrimSpace(command)
	words := strings.Fields(command)
	if len(words) == 0 {
		return command
	}
	name := words[0]
	if strings.ContainsAny(name, "=<>|&;$`'\"\\*?[") {
		// Assignments, redirections or quoting up front: only the exact
		// command is a safe suggestion.
		return EscapeGlob(command)
	}
	if len(words) == 1 {
		return name
	}
	sub := words[1]
	if subcommandTools[name] && !strings.HasPrefix(sub, "-") && !strings.ContainsAny(sub, "*?[") {
		if len(words) == 2 {
			return name + " " + sub
		}
		return name + " " + sub + " *"
	}
	return name + " *"
}

// SuggestDisplay returns the text an approval prompt shows for a shell
// call: the command exactly, or for a script cell the whole script. It
// returns "" for other calls, whose prompt shows SuggestPattern instead.
func SuggestDisplay(c Call) string {
	if c.Type != TypeShellAction {
		return ""
	}
	return c.Command
}

// ParsePattern turns a (possibly user-edited) pattern from SuggestPattern
// back into a rule of the same type as template.
func ParsePattern(pattern string, template Call) Rule {
	switch template.Type {
	case TypeShellAction:
		return Rule{Type: TypeShellAction, ToolName: template.ToolName, Command: pattern}
	case TypeFileRead, TypeFileWrite, TypeFileEdit:
		name, path, found := strings.Cut(strings.TrimSpace(pattern), " ")
		path = strings.TrimSpace(path)
		if !found || path == "" {
			path = template.Path
		}
		if name == "" {
			name = template.ToolName
		}
		return Rule{Type: template.Type, ToolName: name, Path: path}
	default:
		name := strings.TrimSpace(pattern)
		if name == "" {
			name = template.ToolName
		}
		return Rule{Type: template.Type, ToolName: name}
	}
}

// RuleFor returns the rule that matches exactly call.
func RuleFor(c Call) Rule {
	r := Rule{Type: c.Type, ToolName: EscapeGlob(c.ToolName)}
	switch {
	case c.Type == TypeShellAction:
		r.Command = EscapeGlob(c.Command)
	case isFileType(c.Type):
		r.Path = escapePath(c.Path)
	}
	return r
}
