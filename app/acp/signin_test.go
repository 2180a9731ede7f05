package acp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/app/internal/fronttest"
)

// TestACPMCPSignInThroughTheClient: an MCP server of the session that
// needs an OAuth sign-in. A client offering URL elicitation is sent the
// link as elicitation/create in url mode and opens it; any other client
// is told in the conversation while freeact opens the browser itself
// (internal/opener, $BROWSER). Either way the sign-in completes and the
// tool runs.
func TestACPMCPSignInThroughTheClient(t *testing.T) {
	bin := freeactBinary(t)
	for _, tt := range []struct {
		name     string
		offerURL bool
	}{
		{"url elicitation", true},
		{"told in the conversation", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			auth := mcptest.NewOAuth(t)
			ws, environ, _ := env(t, `
turns:
  - reply: [{call: {id: c1, name: secured_echo, args: {text: signed in}}}]
  - expect:
      last: [{role: user, response: secured_echo, output: "echo: signed in"}]
    reply: [{text: "Done."}]
`)
			environ = append(environ, "DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent") // tokens in 0600 files
			if !tt.offerURL {
				environ = append(environ, "BROWSER="+fronttest.FollowBrowser(t))
			} else {
				environ = append(environ, "BROWSER=/bin/false") // freeact must not open it itself
			}
			p := startACP(t, bin, environ)
			caps := sdk.ClientCapabilities{}
			if tt.offerURL {
				caps.Elicitation = &sdk.ElicitationCapabilities{Url: &sdk.ElicitationUrlCapabilities{}}
			}
			if _, err := p.conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientCapabilities: caps}); err != nil {
				t.Fatal(err)
			}
			p.c.answer = pick("allow_once")
			opened := make(chan error, 1)
			p.c.elicit = func(r sdk.UnstableCreateElicitationRequest) sdk.UnstableCreateElicitationResponse {
				if r.Url != nil {
					// The client opens the link: a browser signed in at
					// the authorization server follows it to freeact.
					go func() {
						resp, err := http.Get(r.Url.Url)
						if err == nil {
							resp.Body.Close()
						}
						opened <- err
					}()
				}
				return sdk.UnstableCreateElicitationResponse{Accept: &sdk.UnstableCreateElicitationAccept{Action: "accept"}}
			}
			resp, err := p.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{
				{Http: &sdk.McpServerHttpInline{Name: "secured", Type: "http", Url: auth.URL(), Headers: []sdk.HttpHeader{}}},
			}})
			if err != nil {
				t.Fatalf("session/new: %v; stderr:\n%s", err, p.stderr.String())
			}
			// The client is told the server asks for a sign-in, and gets
			// /mcp-login to ask for it.
			p.c.waitFor(t, "/mcp-login offered", func(u []sdk.SessionNotification, _ []sdk.RequestPermissionRequest) bool {
				for _, n := range u {
					if c := n.Update.AvailableCommandsUpdate; c != nil {
						for _, cmd := range c.AvailableCommands {
							if cmd.Name == "mcp-login" && strings.Contains(cmd.Description, "secured") {
								return true
							}
						}
					}
				}
				return false
			})
			if said := agentText(mustSnapshot(p)); !strings.Contains(said, `The MCP server "secured" asks for a sign-in before its tools are offered: send /mcp-login secured`) {
				t.Errorf("the client was not told of the sign-in it needs: %q", said)
			}
			if r, err := p.prompt(t, resp.SessionId, "/mcp-login secured"); err != nil || r.StopReason != sdk.StopReasonEndTurn {
				t.Fatalf("/mcp-login: %v %v; stderr:\n%s", r.StopReason, err, p.stderr.String())
			}
			if said := agentText(mustSnapshot(p)); !strings.Contains(said, `Signed in to "secured": its tools are offered from the next prompt.`) {
				t.Fatalf("after /mcp-login: %q; stderr:\n%s", said, p.stderr.String())
			}
			r, err := p.prompt(t, resp.SessionId, "Echo.")
			if err != nil || r.StopReason != sdk.StopReasonEndTurn {
				t.Fatalf("prompt: %v %v; stderr:\n%s", r.StopReason, err, p.stderr.String())
			}
			updates, _ := p.c.snapshot()
			text, _, status := toolText(updates, "c1")
			if !strings.Contains(text, "echo: signed in") || status != sdk.ToolCallStatusCompleted {
				t.Errorf("the tool after the sign-in: %q %q; said %q; stderr:\n%s", text, status, agentText(updates), p.stderr.String())
			}
			if _, authz := auth.Counts(); authz != 1 {
				t.Errorf("authorized %d times, want once", authz)
			}
			p.c.mu.Lock()
			forms := p.c.forms
			p.c.mu.Unlock()
			said := agentText(updates)
			if tt.offerURL {
				if len(forms) != 1 || forms[0].Url == nil || !strings.Contains(forms[0].Url.Url, "code_challenge=") || !strings.Contains(forms[0].Url.Message, "secured") {
					t.Fatalf("url elicitations sent: %+v", forms)
				}
				if err := <-opened; err != nil {
					t.Errorf("following the link: %v", err)
				}
				if strings.Contains(said, "code_challenge=") {
					t.Errorf("the link went to the conversation as well: %q", said)
				}
				return
			}
			if len(forms) != 0 {
				t.Errorf("a client without URL elicitation was sent %+v", forms)
			}
			if !strings.Contains(said, `Sign in to the MCP server "secured" in your browser`) || !strings.Contains(said, "code_challenge=") {
				t.Errorf("the client was not told of the sign-in: %q", said)
			}
		})
	}
}

func mustSnapshot(p *proc) []sdk.SessionNotification {
	u, _ := p.c.snapshot()
	return u
}
