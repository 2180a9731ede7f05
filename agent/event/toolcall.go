package event

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/permission"
)

// ToolCall is a tool call awaiting approval: one of CodeAction, ShellAction,
// GenericCall, FileRead, FileWrite or FileEdit.
type ToolCall interface {
	// Name is the tool's name as the model and permission rules see it.
	Name() string
	// Permission is the call as the permission manager matches it.
	Permission() permission.Call
}

// CodeAction is a Python cell the model wants to run.
type CodeAction struct {
	ToolName string `json:"tool_name"`
	Code     string `json:"code"`
}

// ShellAction is one shell command inside a running code action: a simple
// command split from a `!` line, a process IPython starts directly (Opaque),
// or a whole script cell (%%bash, %%perl, %%script X...: tool name
// "shell_magic", the script in Command and the program it is fed to in
// Interpreter).
type ShellAction struct {
	ToolName string `json:"tool_name"`
	Command  string `json:"command"`
	// Interpreter is the command line of the program a script cell runs
	// with, the program as the path of the file that runs ("/usr/bin/bash",
	// "/usr/bin/perl -w"); empty for other shell actions.
	Interpreter string `json:"interpreter,omitempty"`
	// Opaque marks a line that could not be split safely; it is asked as a
	// whole and never allowed by a rule.
	Opaque bool `json:"opaque,omitempty"`
	// dir is the folder the command runs in, on this machine (see
	// permission.Call.Dir); "" is the workspace.
	dir string
}

// InDir is the call run in dir, a folder on this machine (see
// permission.Call.Dir).
func (c ShellAction) InDir(dir string) ShellAction { c.dir = dir; return c }

// GenericCall is any other tool call: an MCP tool, a programmatic call from
// code (PTC set), ipybox_reset or subagent_task.
type GenericCall struct {
	ToolName string          `json:"tool_name"`
	Args     json.RawMessage `json:"tool_args"`
	PTC      bool            `json:"ptc,omitempty"`
	// Hints are an MCP tool's annotations, shown on its approval. They
	// are the server's word and never allow a call (Permission leaves
	// them out).
	Hints *mcp.Hints `json:"hints,omitempty"`
	// Server is the MCP server of an MCP tool call; empty for other
	// calls. Auto mode trusts read-only tools by their server.
	Server string `json:"server,omitempty"`
}

// FileRead is filesystem_read_text_file or filesystem_read_media_file.
type FileRead struct {
	ToolName string `json:"tool_name"`
	// Path is workspace-relative inside the workspace, absolute outside it.
	Path string `json:"path"`
}

// FileWrite is filesystem_write_text_file.
type FileWrite struct {
	ToolName string `json:"tool_name"`
	Path     string `json:"path"`
	Content  string `json:"content"`
}

// FileEdit is filesystem_edit_text_file.
type FileEdit struct {
	ToolName string `json:"tool_name"`
	Path     string `json:"path"`
	OldText  string `json:"old_text"`
	NewText  string `json:"new_text"`
}

// Name returns the tool name.
func (c CodeAction) Name() string { return c.ToolName }

// Name returns the tool name.
func (c ShellAction) Name() string { return c.ToolName }

// Name returns the tool name.
func (c GenericCall) Name() string { return c.ToolName }

// Name returns the tool name.
func (c FileRead) Name() string { return c.ToolName }

// Name returns the tool name.
func (c FileWrite) Name() string { return c.ToolName }

// Name returns the tool name.
func (c FileEdit) Name() string { return c.ToolName }

// Permission returns the call as permission rules see it.
func (c CodeAction) Permission() permission.Call {
	return permission.Call{Type: permission.TypeCodeAction, ToolName: c.ToolName}
}

// Permission returns the call as permission rules see it. A script for any
// program but bash or sh without arguments is opaque: rules match the
// script's text, not the program it runs with.
func (c ShellAction) Permission() permission.Call {
	opaque := c.Opaque
	if c.Interpreter != "" {
		base := path.Base(c.Interpreter)
		opaque = opaque || strings.ContainsAny(c.Interpreter, " \t'\"") || (base != "bash" && base != "sh")
	}
	return permission.Call{Type: permission.TypeShellAction, ToolName: c.ToolName, Command: c.Command, Opaque: opaque, Dir: c.dir}
}

// Display is what an approval prompt shows for the call: for a script cell
// a "#!" line naming its program followed by the whole script, for other
// shell actions the command exactly; "" for other calls.
func Display(c ToolCall) string {
	if s, ok := c.(ShellAction); ok && s.Interpreter != "" {
		return "#!" + s.Interpreter + "\n" + s.Command
	}
	return permission.SuggestDisplay(c.Permission())
}

// Permission returns the call as permission rules see it.
func (c GenericCall) Permission() permission.Call {
	return permission.Call{Type: permission.TypeGenericCall, ToolName: c.ToolName}
}

// Permission returns the call as permission rules see it.
func (c FileRead) Permission() permission.Call {
	return permission.Call{Type: permission.TypeFileRead, ToolName: c.ToolName, Path: c.Path}
}

// Permission returns the call as permission rules see it.
func (c FileWrite) Permission() permission.Call {
	return permission.Call{Type: permission.TypeFileWrite, ToolName: c.ToolName, Path: c.Path}
}

// Permission returns the call as permission rules see it.
func (c FileEdit) Permission() permission.Call {
	return permission.Call{Type: permission.TypeFileEdit, ToolName: c.ToolName, Path: c.Path}
}

// TypeName returns the call's type as permission rules and JSON events name
// it ("CodeAction", "ShellAction", ...).
func TypeName(c ToolCall) string { return c.Permission().Type }
