package terminal

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/internal/testenv"
)

// events collects the JSON lines a terminal writes, for a test to wait on.
type events struct {
	mu    sync.Mutex
	lines []map[string]any
	buf   strings.Builder
}

func (e *events) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.buf.Write(p)
	for {
		s := e.buf.String()
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			break
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(s[:i]), &ev); err != nil {
			ev = map[string]any{"type": "NotJSON", "line": s[:i]}
		}
		e.lines = append(e.lines, ev)
		e.buf.Reset()
		e.buf.WriteString(s[i+1:])
	}
	return len(p), nil
}

// wait returns the n-th (from 0) event of type typ once it was written.
func (e *events) wait(t *testing.T, typ string, n int) map[string]any {
	t.Helper()
	var got map[string]any
	testenv.Eventually(t, 30*time.Second, func() error {
		e.mu.Lock()
		defer e.mu.Unlock()
		k := 0
		for _, ev := range e.lines {
			if ev["type"] == typ {
				if k == n {
					got = ev
					return nil
				}
				k++
			}
		}
		return io.ErrUnexpectedEOF
	})
	return got
}

// Two forms asked at once from two goroutines are answered in the other
// order, each with its own content; a line for neither is refused and
// both stay open; once stdin ends, a form asked later is declined at once
// with the reason.
func TestQuestionsRouteAnswersByID(t *testing.T) {
	in, w := io.Pipe()
	out := &events{}
	term := newTerminal(adapter.Streams{In: in, Out: out, Err: io.Discard}, true, nil)
	forms := &terminalForms{t: term}
	fields := []mcp.Field{{Name: "name", Type: "string", Required: true}, {Name: "age", Type: "integer", Default: 30.0}}
	type result struct {
		a   mcp.Answer
		err error
	}
	ask := func(msg string) <-chan result {
		ch := make(chan result, 1)
		go func() {
			a, err := forms.ask(context.Background(), mcp.Form{Server: "s", Message: msg, Mode: "form", Fields: fields})
			ch <- result{a, err}
		}()
		return ch
	}
	first := ask("first")
	q1 := out.wait(t, "FormRequest", 0)
	second := ask("second")
	q2 := out.wait(t, "FormRequest", 1)
	if q1["id"] == q2["id"] || q1["id"] == nil {
		t.Fatalf("ids %v and %v", q1["id"], q2["id"])
	}
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(w, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send("y")
	if e := out.wait(t, "AnswerError", 0); !strings.Contains(e["error"].(string), "answers no open question") {
		t.Errorf("error %v", e)
	}
	send(`{"id":"` + q2["id"].(string) + `","action":"accept","content":{"name":"Second","age":7}}`)
	r2 := testenv.Receive(t, second, 30*time.Second, "the second form's answer")
	select {
	case r := <-first:
		t.Fatalf("the first form was answered by the second's answer: %+v", r)
	default:
	}
	send(`{"id":"` + q1["id"].(string) + `","action":"decline"}`)
	r1 := testenv.Receive(t, first, 30*time.Second, "the first form's answer")
	if r2.err != nil || r2.a.Action != "accept" || r2.a.Values["name"] != "Second" || r2.a.Values["age"] != int64(7) {
		t.Errorf("second answer %+v", r2)
	}
	if r1.err != nil || r1.a.Action != "decline" || r1.a.Reason != "" {
		t.Errorf("first answer %+v", r1)
	}

	w.Close()
	third := ask("third")
	r3 := testenv.Receive(t, third, 30*time.Second, "the answer to a form asked after the end of input")
	if r3.a.Action != "decline" || r3.a.Reason != NoAnswer {
		t.Errorf("a form after the end of input: %+v, want a decline saying %q", r3.a, NoAnswer)
	}
	if c := out.wait(t, "QuestionClosed", 0); c["reason"] != NoAnswer {
		t.Errorf("closed %v", c)
	}
}
