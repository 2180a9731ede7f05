package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/permission"
)

// Tool names freeact gives its calls in hook input, beside those Claude
// Code's scripts know (Bash, Read, Write, Edit, mcp__<server>__<tool>).
const (
	// ToolPython is a code action: a cell of Python the model wants to
	// run in the kernel; tool_input.code is the cell.
	ToolPython = "PythonCell"
	ToolBash   = "Bash"
	ToolRead   = "Read"
	ToolWrite  = "Write"
	ToolEdit   = "Edit"
)

// MCPTool names a call of tool on an MCP server as Claude Code does.
func MCPTool(server, tool string) string { return "mcp__" + server + "__" + tool }

// Tool is a call as a hook sees it.
type Tool struct {
	Name  string
	Input json.RawMessage
}

// ToolFor names call for hooks. workspace makes file paths absolute; mcp
// says which server and tool a generic call is (ok false: not an MCP
// call), for a JSON tool call and a call from code alike.
func ToolFor(call event.ToolCall, workspace string, mcp func(event.GenericCall) (server, tool string, ok bool)) Tool {
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(workspace, p)
	}
	in := func(v any) json.RawMessage {
		b, _ := json.Marshal(v) // maps of strings always marshal
		return b
	}
	switch c := call.(type) {
	case event.CodeAction:
		return Tool{ToolPython, in(map[string]string{"code": c.Code})}
	case event.ShellAction:
		m := map[string]string{"command": c.Command}
		if c.Interpreter != "" {
			m["interpreter"] = c.Interpreter
		}
		return Tool{ToolBash, in(m)}
	case event.FileRead:
		return Tool{ToolRead, in(map[string]string{"file_path": abs(c.Path)})}
	case event.FileWrite:
		return Tool{ToolWrite, in(map[string]string{"file_path": abs(c.Path), "content": c.Content})}
	case event.FileEdit:
		return Tool{ToolEdit, in(map[string]string{"file_path": abs(c.Path), "old_string": c.OldText, "new_string": c.NewText})}
	case event.GenericCall:
		args := c.Args
		if len(args) == 0 || !json.Valid(args) {
			args = json.RawMessage("{}")
		}
		if mcp != nil {
			if server, tool, ok := mcp(c); ok {
				return Tool{MCPTool(server, tool), args}
			}
		}
		return Tool{c.ToolName, args}
	}
	return Tool{call.Name(), json.RawMessage("{}")}
}

// Apply returns call as a hook's updatedInput changes it; seen is the call
// as the hooks saw it (ToolFor). Like Claude Code, updatedInput stands for
// the whole input: a code action takes its "code", an MCP call its
// arguments, a file write its "content" and a file edit its "old_string"
// and "new_string"; a key left out keeps its value. What freeact cannot do
// is an error that says so, and the call is left as it was: moving a file
// tool to another path, changing a shell command (the kernel runs the
// command it asked about) or a read.
func Apply(call event.ToolCall, seen Tool, updated json.RawMessage) (event.ToolCall, error) {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(updated, &in); err != nil {
		return call, fmt.Errorf("updatedInput is not a JSON object: %w", err)
	}
	str := func(key string, into *string) error {
		raw, ok := in[key]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(raw, into); err != nil {
			return fmt.Errorf("updatedInput.%s is not a string", key)
		}
		return nil
	}
	samePath := func() error {
		var was struct {
			Path string `json:"file_path"`
		}
		_ = json.Unmarshal(seen.Input, &was)
		p := was.Path
		if err := str("file_path", &p); err != nil {
			return err
		}
		if p != was.Path {
			return fmt.Errorf("a hook cannot move %s to another file (%s)", seen.Name, p)
		}
		return nil
	}
	switch c := call.(type) {
	case event.CodeAction:
		return c, errors.Join(str("code", &c.Code))
	case event.GenericCall:
		c.Args = append(json.RawMessage(nil), updated...)
		return c, nil
	case event.FileWrite:
		if err := errors.Join(samePath(), str("content", &c.Content)); err != nil {
			return call, err
		}
		return c, nil
	case event.FileEdit:
		if err := errors.Join(samePath(), str("old_string", &c.OldText), str("new_string", &c.NewText)); err != nil {
			return call, err
		}
		return c, nil
	case event.ShellAction:
		return call, fmt.Errorf("freeact cannot change a shell command: the kernel runs the command it asked about")
	}
	return call, fmt.Errorf("freeact cannot change the input of %s", seen.Name)
}

// RuleCould reports whether a permission rule could let call run without
// asking, given the rules' verdict on it: a hook's allow skips the question
// only where a rule could. Never for a protected file, a command that
// could not be split safely, or a call an ask rule covers.
func RuleCould(verdict permission.Verdict, call event.ToolCall) bool {
	return !verdict.Protected && verdict.Decision != permission.Ask && !call.Permission().Opaque
}
