// Package tooldefs owns the declarations of the agent's own tools as the
// model sees them: code execution, the kernel's reset, the file tools and
// subagent_task, and which names are the agent's (an MCP tool is never
// named after one). Running them is the agent's turn loop.
package tooldefs

import (
	"encoding/json"
	"strings"

	"github.com/freeact/desktop/agent/files"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/mcpglue"
	"github.com/freeact/desktop/agent/model"
)

func schema(v map[string]any) json.RawMessage {
	b, _ := json.Marshal(v) // maps of strings and numbers always marshal
	return b
}

// Builtin declares the tools every agent has: the code cell, the kernel's
// reset and the file tools.
func Builtin() []model.Tool {
	tools := []model.Tool{
		{
			Name: history.ExecuteTool,
			Description: "Run a cell of Python code in the stateful IPython kernel (variables, imports and definitions persist between cells). " +
				"Lines starting with ! run shell commands, and a cell starting with %%bash runs a shell script. " +
				"The working directory is reset to the workspace after each cell. Returns the cell's output, its error with traceback, and links to saved images.",
			Parameters: schema(map[string]any{
				"type":       "object",
				"properties": map[string]any{"code": map[string]any{"type": "string", "description": "The Python code to run."}},
				"required":   []string{"code"},
			}),
		},
		{
			Name:        history.ResetTool,
			Description: "Restart the IPython kernel. All variables, imports and definitions are lost.",
			Parameters:  schema(map[string]any{"type": "object", "properties": map[string]any{}}),
		},
	}
	for _, t := range files.Tools() {
		tools = append(tools, model.Tool{Name: t.Name, Description: t.Description, Parameters: schema(t.Parameters)})
	}
	return tools
}

// Subagent declares subagent_task, whose max_turns defaults to
// defaultMaxTurns.
func Subagent(defaultMaxTurns int) model.Tool {
	return model.Tool{
		Name: history.SubagentTool,
		Description: "Hand a self-contained task to a subagent with its own kernel. It sees none of this conversation, only the prompt, " +
			"so say everything it needs. Its final answer is the result. Several subagents can run in parallel.",
		Parameters: schema(map[string]any{
			"type": "object",
			"properties": map[string]any{
				"prompt":    map[string]any{"type": "string", "description": "The complete task for the subagent."},
				"max_turns": map[string]any{"type": "integer", "minimum": 1, "default": defaultMaxTurns, "description": "The most model calls the subagent may make."},
			},
			"required": []string{"prompt"},
		}),
	}
}

// IsBuiltin tells whether name is one of the agent's own tools (the
// tool-search tools included).
func IsBuiltin(name string) bool {
	switch name {
	case history.ExecuteTool, history.ResetTool, history.SubagentTool,
		mcpglue.ListCategoriesTool, mcpglue.ListToolsTool, mcpglue.SearchToolsTool:
		return true
	}
	return strings.HasPrefix(name, "filesystem_")
}
