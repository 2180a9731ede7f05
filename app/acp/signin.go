package acp

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/freeact/desktop/internal/opener"
	"github.com/freeact/desktop/internal/visible"
)

// signIn is the browser step of an MCP server's OAuth sign-in, for a
// session in an ACP client. The client started freeact acp over stdio, so
// the browser that is to reach freeact's loopback redirect is on this
// machine.
//
//   - A client that offers URL elicitation (elicitation.url, unstable)
//     gets the link as elicitation/create in url mode: the client shows it
//     and opens it on the user's answer; a decline stops the sign-in.
//   - Any other client is told in the conversation (the link on one line,
//     as the terminal prints it), and freeact opens it through
//     internal/opener, as freeact run does; without a browser there the
//     link is all the user has.
//
// Either way the sign-in then waits for the browser's redirect, for
// mcp.SignInOptions.Timeout. A link opener.CheckURL refuses (not https,
// http not to a loopback host, spaces) is not passed on.
func (ss *acpSession) signIn(ctx context.Context, server, authURL string) error {
	link, err := opener.CheckURL(authURL)
	if err != nil {
		ss.send(ctx, sdk.UpdateAgentMessageText(fmt.Sprintf("\n\nThe MCP server %s asks you to sign in, but its link cannot be opened (%s).\n", visible.Line(strconv.Quote(server)), visible.Line(err.Error()))))
		return fmt.Errorf("sign in to %s: %w", server, err)
	}
	ss.srv.mu.Lock()
	caps := ss.srv.client.Elicitation
	ss.srv.mu.Unlock()
	if caps != nil && caps.Url != nil {
		req := sdk.NewUnstableCreateElicitationRequestUrl(sdk.UnstableElicitationId("signin-"+rand.Text()), link.URL)
		req.Url.Message = fmt.Sprintf("Sign in to the MCP server %s at %s to use it in this session.", server, link.Host)
		resp, err := ss.srv.conn.UnstableCreateElicitation(ctx, req)
		switch {
		case err != nil:
			return fmt.Errorf("sign in to %s: the ACP client did not show the link: %w", server, err)
		case resp.Accept != nil:
			return nil
		}
		return fmt.Errorf("sign in to %s: declined in the ACP client (sign in later with freeact mcp login %s)", server, server)
	}
	ss.send(ctx, sdk.UpdateAgentMessageText(fmt.Sprintf("\n\nSign in to the MCP server %s in your browser (at %s); if it does not open, visit:\n%s\nfreeact waits for the sign-in.\n",
		visible.Line(strconv.Quote(server)), visible.Line(link.Host), visible.Line(link.URL))))
	if _, err := (opener.Opener{}).OpenURL(ctx, link.URL); err != nil {
		ss.srv.o.Log.Info("MCP sign-in: the browser did not open", "server", server, "err", err)
	}
	return nil
}

// loginCommandName is the slash command that signs in to an MCP server
// of the session: the sign-in opens the browser only when the user asks,
// as Settings → MCP and freeact mcp login do.
const loginCommandName = "mcp-login"

// loginCommand reads "/mcp-login SERVER" (ok), SERVER "" when none is given.
func loginCommand(text string) (server string, ok bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(text), "/"+loginCommandName)
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// needSignIn lists the session's MCP servers that did not connect because
// they ask for a sign-in.
func (ss *acpSession) needSignIn() []string {
	var names []string
	for _, f := range ss.a.MCPFailures() {
		if strings.Contains(f.Error, "sign-in needed") {
			names = append(names, f.Server)
		}
	}
	return names
}

// signInCommand adds /mcp-login to the slash commands when an MCP server
// of the session asks for a sign-in, and tells the client which.
func (ss *acpSession) signInCommand(cmds []sdk.AvailableCommand) []sdk.AvailableCommand {
	names := ss.needSignIn()
	if len(names) == 0 {
		return cmds
	}
	for _, n := range names {
		ss.send(ss.srv.life, sdk.UpdateAgentMessageText(fmt.Sprintf("The MCP server %s asks for a sign-in before its tools are offered: send /%s %s to sign in.\n",
			visible.Line(strconv.Quote(n)), loginCommandName, visible.Line(n))))
	}
	return append(cmds, sdk.AvailableCommand{
		Name: loginCommandName, Description: "Sign in to an MCP server of this session that asks for it (" + strings.Join(names, ", ") + ")",
		Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "server name"}},
	})
}

// login runs /mcp-login SERVER: the sign-in (the browser step is signIn),
// then the server's tools are offered from the next prompt. What happened
// is told in the conversation; the turn ends either way.
func (ss *acpSession) login(ctx context.Context, server string) sdk.PromptResponse {
	say := func(format string, args ...any) {
		ss.send(ctx, sdk.UpdateAgentMessageText(fmt.Sprintf(format, args...)))
	}
	if server == "" {
		names := ss.needSignIn()
		if len(names) != 1 {
			say("Name the MCP server: /%s SERVER (asking for a sign-in: %s).\n", loginCommandName, visible.Line(strings.Join(names, ", ")))
			return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}
		}
		server = names[0]
	}
	err := ss.a.MCPLogin(ctx, server)
	switch {
	case errors.Is(err, context.Canceled):
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}
	case err != nil:
		say("The sign-in to %s did not complete: %s\n", visible.Line(strconv.Quote(server)), visible.Line(err.Error()))
	default:
		say("Signed in to %s: its tools are offered from the next prompt.\n", visible.Line(strconv.Quote(server)))
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}
}
