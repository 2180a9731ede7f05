package acp_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/freeact/desktop/app/internal/fronttest"
)

// These tests run the real `freeact acp` process, with a real kernel and
// the wire-level fake Gemini server, and talk to it with the ACP SDK's
// client side: nothing of the protocol is faked.

func freeactBinary(t *testing.T) string { return fronttest.FreeactBinary(t) }

// env is fronttest.Env: a workspace and freeact's environment over the
// fake model playing scenario.
func env(t *testing.T, scenario string) (ws string, environ []string, marker string) {
	t.Helper()
	return fronttest.Env(t, scenario)
}

// client is the test's ACP client: it records every update and answers
// permission requests with the option answer picks.
type client struct {
	mu sync.Mutex
	// toolCallAt is when the first tool_call came since it was last reset.
	toolCallAt time.Time
	updates    []sdk.SessionNotification
	asked      []sdk.RequestPermissionRequest
	changed    chan struct{}
	answer     func(sdk.RequestPermissionRequest) sdk.RequestPermissionResponse
	// elicit answers elicitation/create; forms are the requests.
	elicit func(sdk.UnstableCreateElicitationRequest) sdk.UnstableCreateElicitationResponse
	forms  []sdk.UnstableCreateElicitationRequest
	// fs answers fs/read_text_file and fs/write_text_file; nil refuses
	// them (a client that does not offer them).
	fs interface {
		ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error)
		WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error)
	}
}

func newClient() *client { return &client{changed: make(chan struct{}, 1)} }

func (c *client) poke() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

func (c *client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	if n.Update.ToolCall != nil && c.toolCallAt.IsZero() {
		c.toolCallAt = time.Now()
	}
	c.mu.Unlock()
	c.poke()
	return nil
}

func (c *client) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, p)
	answer := c.answer
	c.mu.Unlock()
	c.poke()
	if answer == nil {
		<-ctx.Done()
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
	}
	return answer(p), nil
}

func pick(id string) func(sdk.RequestPermissionRequest) sdk.RequestPermissionResponse {
	return func(sdk.RequestPermissionRequest) sdk.RequestPermissionResponse {
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(id)}}}
	}
}

func (c *client) ReadTextFile(ctx context.Context, r sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	if c.fs != nil {
		return c.fs.ReadTextFile(ctx, r)
	}
	return sdk.ReadTextFileResponse{}, errors.New("not offered")
}
func (c *client) WriteTextFile(ctx context.Context, r sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	if c.fs != nil {
		return c.fs.WriteTextFile(ctx, r)
	}
	return sdk.WriteTextFileResponse{}, errors.New("not offered")
}

// UnstableCreateElicitation answers an MCP server's form with elicit
// (and records it); nil cancels.
func (c *client) UnstableCreateElicitation(_ context.Context, r sdk.UnstableCreateElicitationRequest) (sdk.UnstableCreateElicitationResponse, error) {
	c.mu.Lock()
	c.forms = append(c.forms, r)
	answer := c.elicit
	c.mu.Unlock()
	if answer == nil {
		return sdk.UnstableCreateElicitationResponse{Cancel: &sdk.UnstableCreateElicitationCancel{Action: "cancel"}}, nil
	}
	return answer(r), nil
}

func (c *client) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errors.New("not offered")
}
func (c *client) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errors.New("not offered")
}
func (c *client) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errors.New("not offered")
}
func (c *client) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errors.New("not offered")
}
func (c *client) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errors.New("not offered")
}

// waitFor waits until cond holds over the updates and requests so far.
func (c *client) waitFor(t *testing.T, what string, cond func(updates []sdk.SessionNotification, asked []sdk.RequestPermissionRequest) bool) {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		c.mu.Lock()
		ok := cond(c.updates, c.asked)
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-c.changed:
		case <-deadline:
			t.Fatalf("no %s", what)
		}
	}
}

// snapshot copies what the client got so far.
func (c *client) snapshot() ([]sdk.SessionNotification, []sdk.RequestPermissionRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.SessionNotification{}, c.updates...), append([]sdk.RequestPermissionRequest{}, c.asked...)
}

// proc is a running `freeact acp` and the client connected to it.
type proc struct {
	cmd    *exec.Cmd
	conn   *sdk.ClientSideConnection
	c      *client
	stdin  io.WriteCloser
	stderr *bytes.Buffer
	exited chan error
}

func startACP(t *testing.T, bin string, environ []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"acp"}, args...)...)
	cmd.Env = environ
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, c: newClient(), stdin: stdin, stderr: &stderr, exited: make(chan error, 1)}
	p.conn = sdk.NewClientSideConnection(p.c, stdin, stdout)
	p.conn.SetLogger(slog.New(slog.DiscardHandler))
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() { p.stop(t) })
	return p
}

// stop closes stdin (the client goes away) and waits for a clean exit.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	if p.stdin == nil {
		return
	}
	p.stdin.Close()
	p.stdin = nil
	select {
	case err := <-p.exited:
		if err != nil {
			t.Errorf("freeact acp exited with %v; stderr:\n%s", err, p.stderr.String())
		}
	case <-time.After(time.Minute):
		p.cmd.Process.Kill()
		<-p.exited
		t.Errorf("freeact acp did not exit when its client went away; stderr:\n%s", p.stderr.String())
	}
}

func (p *proc) initialize(t *testing.T) sdk.InitializeResponse {
	t.Helper()
	resp, err := p.conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatalf("initialize: %v; stderr:\n%s", err, p.stderr.String())
	}
	return resp
}

func (p *proc) newSession(t *testing.T, ws string) sdk.SessionId {
	t.Helper()
	resp, err := p.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v; stderr:\n%s", err, p.stderr.String())
	}
	return resp.SessionId
}

func (p *proc) prompt(t *testing.T, id sdk.SessionId, text string) (sdk.PromptResponse, error) {
	t.Helper()
	return p.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
}

// toolText is every text the tool call id's updates carried, joined.
func toolText(updates []sdk.SessionNotification, id string) (text string, kinds []sdk.ToolKind, status sdk.ToolCallStatus) {
	var b strings.Builder
	add := func(cs []sdk.ToolCallContent) {
		for _, c := range cs {
			if c.Content != nil && c.Content.Content.Text != nil {
				b.WriteString(c.Content.Content.Text.Text)
				b.WriteString("\n")
			}
		}
	}
	for _, n := range updates {
		u := n.Update
		switch {
		case u.ToolCall != nil && string(u.ToolCall.ToolCallId) == id:
			kinds = append(kinds, u.ToolCall.Kind)
			status = u.ToolCall.Status
			add(u.ToolCall.Content)
		case u.ToolCallUpdate != nil && string(u.ToolCallUpdate.ToolCallId) == id:
			if u.ToolCallUpdate.Status != nil {
				status = *u.ToolCallUpdate.Status
			}
			add(u.ToolCallUpdate.Content)
		}
	}
	return b.String(), kinds, status
}

func agentText(updates []sdk.SessionNotification) string {
	var b strings.Builder
	for _, n := range updates {
		if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
		}
	}
	return b.String()
}
