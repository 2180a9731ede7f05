package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/freeact/desktop/app/internal/fronttest"
	"os/exec"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// TestACPBadMessagesGetJSONRPCErrors: what is not a message, an unknown
// method and bad parameters each get a JSON-RPC error saying what is
// wrong, and the connection goes on.
func TestACPBadMessagesGetJSONRPCErrors(t *testing.T) {
	bin := freeactBinary(t)
	_, environ, _ := env(t, "turns: []")
	cmd := exec.Command(bin, "acp")
	cmd.Env = environ
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	tests := []struct {
		send string
		code int
		says string
	}{
		{`this is not json`, -32700, "not JSON"},
		{`[1, 2]`, -32600, "not a JSON object"},
		{`{"jsonrpc":"2.0"}`, -32600, "neither a method nor an id"},
		{`{"jsonrpc":"2.0","id":1,"method":"session/frobnicate","params":{}}`, -32601, "session/frobnicate"},
		{`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"hi"}]}}`, -32602, "no open session"},
		{`{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}`, -32602, "not an absolute path"},
		{`{"jsonrpc":"2.0","id":4,"method":"session/load","params":{"sessionId":"","cwd":"/tmp","mcpServers":[]}}`, -32602, "sessionId is empty"},
		{`{"jsonrpc":"2.0","id":5,"method":"authenticate","params":{"methodId":"password"}}`, -32602, "unknown method"},
	}
	for _, tt := range tests {
		if _, err := fmt.Fprintln(stdin, tt.send); err != nil {
			t.Fatal(err)
		}
		if !lines.Scan() {
			t.Fatalf("no answer to %s", tt.send)
		}
		var resp struct {
			ID    any `json:"id"`
			Error *struct {
				Code    int            `json:"code"`
				Message string         `json:"message"`
				Data    map[string]any `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal(lines.Bytes(), &resp); err != nil || resp.Error == nil {
			t.Errorf("%s: answer %s", tt.send, lines.Text())
			continue
		}
		if resp.Error.Code != tt.code || !strings.Contains(lines.Text(), tt.says) {
			t.Errorf("%s: answer %s, want code %d saying %q", tt.send, lines.Text(), tt.code, tt.says)
		}
	}
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":1}}`)
	if !lines.Scan() || !strings.Contains(lines.Text(), `"protocolVersion":1`) {
		t.Errorf("initialize after the bad messages: %s", lines.Text())
	}
}

const sleepTurn = `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "import time\nprint('sleeping', flush=True)\ntime.sleep(600)"}}}]
`

// TestACPClientGoneMidTurn: a client that goes away during a cell stops
// the turn, the kernel and the process; the session opens again with the
// turn in it.
func TestACPClientGoneMidTurn(t *testing.T) {
	bin := freeactBinary(t)
	ws, environ, marker := env(t, sleepTurn)
	p := startACP(t, bin, environ)
	p.initialize(t)
	p.c.answer = pick("allow_once")
	id := p.newSession(t, ws)
	go p.prompt(t, id, "sleep")
	p.c.waitFor(t, "output before the sleep", func(u []sdk.SessionNotification, _ []sdk.RequestPermissionRequest) bool {
		text, _, _ := toolText(u, "c1")
		return strings.Contains(text, "```\nsleeping")
	})
	start := time.Now()
	p.stop(t) // closes stdin and waits for a clean exit
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("exit took %v", d)
	}
	if pids := fronttest.ProcessesWith(marker); len(pids) > 0 {
		t.Errorf("processes left running after the client went away: %v", pids)
	}

	q := startACP(t, bin, environ)
	q.initialize(t)
	if _, err := q.conn.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: id, Cwd: ws, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load after the client went away: %v; stderr:\n%s", err, q.stderr.String())
	}
	updates, _ := q.c.snapshot()
	var user string
	for _, n := range updates {
		if c := n.Update.UserMessageChunk; c != nil && c.Content.Text != nil {
			user += c.Content.Text.Text
		}
	}
	if user != "sleep" {
		t.Errorf("the loaded session's prompt is %q", user)
	}
}

// TestACPUnansweredPermission: a client that never answers a permission
// request holds the turn until session/cancel, which ends it without
// running the code; the session goes on.
func TestACPUnansweredPermission(t *testing.T) {
	bin := freeactBinary(t)
	ws, environ, _ := env(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "open('ran.txt', 'w').write('x')"}}}]
  - reply: [{text: "Hello."}]
`)
	p := startACP(t, bin, environ)
	p.initialize(t)
	id := p.newSession(t, ws) // p.c.answer nil: never answers
	done := make(chan sdk.PromptResponse, 1)
	go func() {
		r, _ := p.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("write")}})
		done <- r
	}()
	p.c.waitFor(t, "permission request", func(_ []sdk.SessionNotification, asked []sdk.RequestPermissionRequest) bool { return len(asked) == 1 })
	if err := p.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.StopReason != sdk.StopReasonCancelled {
			t.Errorf("stop reason %q", r.StopReason)
		}
	case <-time.After(time.Minute):
		t.Fatal("session/cancel did not end a turn waiting for a permission answer")
	}
	if _, err := exec.Command("test", "-e", ws+"/ran.txt").Output(); err == nil {
		t.Error("the unanswered code ran")
	}
	if r, err := p.prompt(t, id, "hi"); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("the next prompt: %+v %v", r, err)
	}
}
