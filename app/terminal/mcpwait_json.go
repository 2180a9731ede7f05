package terminal

import (
	"context"
	"errors"
	"fmt"
	"github.com/freeact/desktop/agent/mcpglue"
	"strings"

	"github.com/freeact/desktop/agent"
)

// askMCPWait is the kind of the question an MCPWaiting event asks in
// --json mode: go on without the MCP servers still connecting?
const askMCPWait = "mcp_wait"

// waitQuestion asks a main agent's MCPWaiting as a question in --json
// mode: accept (a bare Enter, y or skip) lets the model call go on
// without the servers; decline keeps waiting. The question closes
// (QuestionClosed) when the wait ends without an answer; no answer
// (stdin ended) keeps waiting, up to the servers' connect_timeout.
type waitQuestion struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
}

// ErrWaitOver is why an unanswered wait question closes: the wait ended
// (the servers connected, failed or ran out of time).
var ErrWaitOver = errors.New("the wait is over: the MCP servers connected or stopped trying")

func (w *waitQuestion) start(ctx context.Context, t *terminal, e *mcpglue.MCPWaiting, stopped <-chan struct{}) {
	w.end()
	b, err := agent.MarshalEvent(e)
	if err != nil {
		fmt.Fprintf(t.errw, "error: %v\n", err)
		return
	}
	qctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	w.cancel, w.done = cancel, done
	go func() {
		defer close(done)
		a, _, ok := t.qs.ask(qctx, stopped, &question{kind: askMCPWait, bare: waitBare}, b)
		if ok && a.Action == actAccept {
			e.Skip()
		}
	}()
}

// end closes the question if it is still open and waits for its asker.
func (w *waitQuestion) end() {
	if w.cancel == nil {
		return
	}
	w.cancel(ErrWaitOver)
	<-w.done
	w.cancel, w.done = nil, nil
}

// waitBare reads a bare answer to a wait question: Enter, y or skip go
// on without the servers, n or wait keep waiting.
func waitBare(line string) (reply, error) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "", "y", "yes", "skip", "/skip":
		return reply{Action: actAccept}, nil
	case "n", "no", "wait":
		return reply{Action: actDecline}, nil
	}
	return reply{}, errors.New(`MCP wait answer: send skip (or Enter) to go on without the servers, wait to keep waiting, or {"id":"qN","action":"accept"}`)
}
