package acp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/model"
)

func encode(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// replayHistory streams a loaded session's conversation back: the user's
// prompts, the answers and thoughts, and each tool call with its result.
// The agent's own notes to the model are left out.
func (ss *acpSession) replayHistory(ctx context.Context) {
	names := map[string]agent.ToolCall{}
	for _, m := range ss.a.History() {
		switch m.Role {
		case model.RoleUser:
			if agent.IsPrompt(m) {
				for _, p := range m.Parts {
					if p.Text != "" && p.User {
						ss.send(ctx, sdk.UpdateUserMessageText(p.Text))
					}
				}
				continue
			}
			for _, r := range m.FunctionResponses() {
				st := sdk.ToolCallStatusCompleted
				if r.IsError {
					st = sdk.ToolCallStatusFailed
				}
				content := []sdk.ToolCallContent{}
				if tc, ok := names[r.ID]; ok {
					_, _, content, _ = describe(tc, "", ss.dir, ss.servers())
				}
				if by := history.ApprovedBy(r, ss.a.SealedWhole); by != nil {
					content = append(content, sdk.ToolContent(sdk.TextBlock(allowedText(*by))))
				}
				if r.Output != "" {
					content = append(content, sdk.ToolContent(sdk.TextBlock("```\n"+r.Output+"\n```")))
				}
				ss.send(ctx, sdk.UpdateToolCall(sdk.ToolCallId(r.ID), sdk.WithUpdateStatus(st), sdk.WithUpdateContent(content)))
			}
		case model.RoleModel:
			for _, p := range m.Parts {
				switch {
				case p.FunctionCall != nil:
					tc := historyCall(*p.FunctionCall)
					names[p.FunctionCall.ID] = tc
					kind, title, head, loc := describe(tc, "", ss.dir, ss.servers())
					ss.send(ctx, sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
						ToolCallId: sdk.ToolCallId(p.FunctionCall.ID), Title: title, Kind: kind,
						Status: sdk.ToolCallStatusPending, Content: head, Locations: loc,
					}})
				case p.Thought && p.Text != "":
					ss.send(ctx, sdk.UpdateAgentThoughtText(p.Text))
				case p.Text != "":
					ss.send(ctx, sdk.UpdateAgentMessageText(p.Text))
				}
			}
		}
	}
}

// servers names the session's JSON-tool MCP servers.
func (ss *acpSession) servers() []string {
	out := make([]string, 0, len(ss.cfg.Options.MCPServers))
	for name := range ss.cfg.Options.MCPServers {
		out = append(out, name)
	}
	return out
}

// historyCall is a recorded function call as the tool call it was.
func historyCall(fc model.FunctionCall) agent.ToolCall {
	var args map[string]any
	_ = json.Unmarshal(fc.Args, &args)
	str := func(k string) string { s, _ := args[k].(string); return s }
	switch {
	case fc.Name == "ipybox_execute_ipython_cell":
		return agent.CodeAction{ToolName: fc.Name, Code: str("code")}
	case strings.HasPrefix(fc.Name, "filesystem_read"):
		return agent.FileRead{ToolName: fc.Name, Path: str("path")}
	case fc.Name == "filesystem_write_text_file":
		return agent.FileWrite{ToolName: fc.Name, Path: str("path"), Content: str("content")}
	}
	return agent.GenericCall{ToolName: fc.Name, Args: fc.Args}
}
