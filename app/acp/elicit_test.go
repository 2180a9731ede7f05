package acp_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/freeact/desktop/internal/testenv"
)

// TestACPFormsGoToTheClient: an MCP server's form is shown by a client
// that offers elicitation forms, and its answer reaches the server; a
// client that does not offer them has the form declined, the turn going
// on.
func TestACPFormsGoToTheClient(t *testing.T) {
	bin := freeactBinary(t)
	everything := testenv.MCPServer(t, "server-everything")
	for _, tt := range []struct {
		name   string
		offers bool
		output string
	}{
		{"offered", true, "Name: Ada Lovelace"},
		{"not offered", false, "declined"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws, environ, _ := env(t, `
turns:
  - reply: [{call: {id: c1, name: everything_trigger-elicitation-request, args: {}}}]
  - expect:
      last: [{role: user, response: everything_trigger-elicitation-request, output: "`+tt.output+`"}]
    reply: [{text: "Done."}]
`)
			p := startACP(t, bin, environ)
			caps := sdk.ClientCapabilities{}
			if tt.offers {
				caps.Elicitation = &sdk.ElicitationCapabilities{Form: &sdk.ElicitationFormCapabilities{}}
			}
			if _, err := p.conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientCapabilities: caps}); err != nil {
				t.Fatalf("initialize: %v", err)
			}
			p.c.answer = pick("allow_once")
			p.c.elicit = func(sdk.UnstableCreateElicitationRequest) sdk.UnstableCreateElicitationResponse {
				return sdk.UnstableCreateElicitationResponse{Accept: &sdk.UnstableCreateElicitationAccept{Action: "accept", Content: map[string]any{
					"name": "Ada Lovelace", "check": true, "email": "ada@example.com", "untitledMultipleSelectEnum": []any{"Piano"}}}}
			}
			resp, err := p.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{
				{Stdio: &sdk.McpServerStdio{Name: "everything", Command: "node", Args: []string{everything}, Env: []sdk.EnvVariable{}}},
			}})
			if err != nil {
				t.Fatalf("session/new: %v; stderr:\n%s", err, p.stderr.String())
			}
			r, err := p.prompt(t, resp.SessionId, "Ask me.")
			if err != nil || r.StopReason != sdk.StopReasonEndTurn {
				t.Fatalf("prompt: %v, %v; stderr:\n%s", r.StopReason, err, p.stderr.String())
			}
			p.c.mu.Lock()
			forms := p.c.forms
			p.c.mu.Unlock()
			if !tt.offers {
				if len(forms) != 0 {
					t.Errorf("a client without elicitation was sent %d forms", len(forms))
				}
				return
			}
			if len(forms) != 1 || forms[0].Form == nil {
				t.Fatalf("forms sent: %+v", forms)
			}
			f := forms[0].Form
			if !strings.Contains(f.Message, "everything") || f.RequestedSchema.Properties["name"] == nil {
				t.Errorf("form %q with properties %v", f.Message, f.RequestedSchema.Properties)
			}
		})
	}
}
