package acp

import (
	"context"
	"encoding/base64"
	"fmt"
	"github.com/freeact/desktop/agent/failure"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/app/adapter"
)

// acpSession is one open session: its agent and its running turn.
type acpSession struct {
	srv *Server
	id  string
	dir string
	cfg *config.Config
	a   *agent.Agent

	mu      sync.Mutex
	running bool
	stop    context.CancelFunc // ends the running turn's context
	// stopAsking ends the running turn's permission request: cancelled
	// turns wait for no answer.
	stopAsking context.CancelFunc
	closed     bool
	// options are the config options the client set (configopts.go), by
	// id; they change this session, not agent.json.
	options map[string]string
}

// send writes one session/update; a client gone away is noticed by the
// connection, so the error is only logged.
func (ss *acpSession) send(ctx context.Context, u sdk.SessionUpdate) {
	if err := ss.srv.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sdk.SessionId(ss.id), Update: u}); err != nil {
		ss.srv.o.Log.Debug("session/update", "err", err)
	}
}

// advertise sends the slash commands: the workspace's skills (the agent
// expands /name itself) and the MCP servers' prompts (/server:prompt
// key=value ..., expanded by ExpandMCP as the prompt box's are). It runs
// after the answer that names the session, and asks the servers for at
// most mcpListWait.
func (ss *acpSession) advertise() {
	go func() {
		cmds := []sdk.AvailableCommand{}
		for _, sk := range ss.cfg.Skills {
			cmds = append(cmds, sdk.AvailableCommand{
				Name: sk.Name, Description: sk.Description,
				Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "what the skill is for"}},
			})
		}
		// Listing never opens a browser: a server that asks for a sign-in
		// is left to /mcp-login (signInCommand).
		ctx, cancel := context.WithTimeout(mcp.WithoutBrowser(ss.srv.life), mcpListWait)
		defer cancel()
		for _, p := range ss.a.MCPCatalog(ctx).Prompts {
			hint := "no arguments"
			if len(p.Arguments) > 0 {
				var args []string
				for _, a := range p.Arguments {
					args = append(args, a.Name+"=…")
				}
				hint = strings.Join(args, " ")
			}
			cmds = append(cmds, sdk.AvailableCommand{
				Name: p.Server + ":" + p.Name, Description: p.Description,
				Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: hint}},
			})
		}
		cmds = ss.signInCommand(cmds)
		ss.send(ss.srv.life, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: cmds}})
	}()
}

// mcpListWait bounds asking the MCP servers for their prompts.
const mcpListWait = 10 * time.Second

// prompt runs one turn: one at a time per session.
func (ss *acpSession) prompt(_ context.Context, blocks []sdk.ContentBlock) (sdk.PromptResponse, error) {
	p, err := toPrompt(blocks)
	if err != nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	login, isLogin := loginCommand(p.Text)
	// /server:prompt commands and @server:uri mentions, as the prompt box
	// expands them; a mention over the limit is refused, not attached.
	if p.Text, err = ss.a.ExpandMCP(ss.srv.life, p.Text); err != nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return sdk.PromptResponse{}, sdk.NewInvalidRequest(map[string]any{"error": "the session is closed"})
	}
	if ss.running {
		ss.mu.Unlock()
		return sdk.PromptResponse{}, sdk.NewInvalidRequest(map[string]any{"error": "a turn is already running in this session: wait for its answer, or send session/cancel"})
	}
	// The turn runs under the connection's life, not only the request:
	// session/cancel and the client going away both end it.
	turnCtx, stop := context.WithCancel(ss.srv.life)
	askCtx, stopAsking := context.WithCancel(turnCtx)
	ss.running, ss.stop, ss.stopAsking = true, stop, stopAsking
	ss.mu.Unlock()
	defer func() {
		ss.mu.Lock()
		ss.running, ss.stop, ss.stopAsking = false, nil, nil
		ss.mu.Unlock()
		stop()
	}()
	// The request's own context is not watched: the SDK cancels it when
	// a second session/prompt comes, which is refused here and must not
	// stop the running turn. session/cancel stops it (Server.Cancel).
	if isLogin {
		// /mcp-login SERVER: the sign-in, not a model turn.
		return ss.login(askCtx, login), nil
	}
	t := newTurn(ss, turnCtx, askCtx)
	for ev := range ss.a.Stream(turnCtx, p) {
		t.handle(ev)
	}
	t.finish()
	switch {
	case t.cancelled:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case t.failed != nil:
		msg := t.failed.Error
		if advice := adapter.FailureAdvice(t.failed); advice != "" {
			msg = advice
		}
		if t.failed.Cause == failure.CauseAPIKey {
			return sdk.PromptResponse{}, authRequired(fmt.Errorf("%s", msg))
		}
		return sdk.PromptResponse{}, sdk.NewInternalError(map[string]any{"error": msg, "detail": t.failed.Error})
	case t.cut:
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTokens}, nil
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

// cancel stops the running turn, as Stop does: the agent cancels (the
// cell is interrupted, a pending approval rejected).
func (ss *acpSession) cancel() {
	ss.mu.Lock()
	running, stopAsking := ss.running, ss.stopAsking
	ss.mu.Unlock()
	if running {
		ss.a.Cancel()
		stopAsking()
	}
}

// close stops the turn and the agent.
func (ss *acpSession) close(log *slog.Logger) {
	ss.mu.Lock()
	ss.closed = true
	stop := ss.stop
	ss.mu.Unlock()
	ss.a.Cancel()
	if stop != nil {
		stop()
	}
	if err := ss.a.Stop(); err != nil {
		log.Warn("stop agent", "session", ss.id, "err", err)
	}
}

// toPrompt turns the prompt's blocks into freeact's prompt: text as it is,
// images as images, resource links as mentions of their location, and
// embedded resources as quoted text.
func toPrompt(blocks []sdk.ContentBlock) (agent.Prompt, error) {
	var p agent.Prompt
	var text []string
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			text = append(text, b.Text.Text)
		case b.Image != nil:
			data, err := base64.StdEncoding.DecodeString(b.Image.Data)
			if err != nil {
				return p, fmt.Errorf("prompt block %d: the image's data is not base64: %v", i, err)
			}
			if !strings.HasPrefix(b.Image.MimeType, "image/") {
				return p, fmt.Errorf("prompt block %d: %q is not an image type", i, b.Image.MimeType)
			}
			p.Images = append(p.Images, model.Image{MIMEType: b.Image.MimeType, Data: data})
		case b.ResourceLink != nil:
			text = append(text, mention(b.ResourceLink.Uri))
		case b.Resource != nil:
			r := b.Resource.Resource
			switch {
			case r.TextResourceContents != nil:
				text = append(text, fmt.Sprintf("%s:\n```\n%s\n```", mention(r.TextResourceContents.Uri), r.TextResourceContents.Text))
			case r.BlobResourceContents != nil:
				text = append(text, mention(r.BlobResourceContents.Uri))
			}
		case b.Audio != nil:
			return p, fmt.Errorf("prompt block %d: audio is not taken (initialize says so): send text or images", i)
		}
	}
	p.Text = strings.Join(text, "\n")
	if strings.TrimSpace(p.Text) == "" && len(p.Images) == 0 {
		return p, fmt.Errorf("the prompt is empty: send at least one text block")
	}
	return p, nil
}

// mention is how a linked resource is named in the prompt: a file as its
// path, anything else as its URI.
func mention(uri string) string {
	if u, err := url.Parse(uri); err == nil && u.Scheme == "file" {
		return "@" + u.Path
	}
	return "<" + uri + ">"
}
