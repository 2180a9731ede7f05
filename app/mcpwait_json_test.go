package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/app/terminal"
)

// A mention over the limit in --json mode is a Confirm question with an
// id: a bare n refuses it, an answer object naming it attaches it, and
// no answer (stdin ended) refuses it; a refused request is not sent and
// a NotSent event says why. Nothing of it goes to stderr as a prompt.
func TestRunJSONLargeMentionIsAQuestion(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, _ := terminalEnv(t, `
turns:
  - expect:
      last: [{role: user, text: "resource server=\"gated\" uri=\"data://big\""}]
    reply: [{text: "Read it."}]
`)
	withGatedServer(t, ws, "gated", "-")
	r := startJSON(t, bin, env, "--workspace", ws)
	ask := func() string {
		t.Helper()
		r.send("Summarise @gated:data://big")
		q := r.next("Confirm")
		id, _ := q["id"].(string)
		if id == "" || !strings.Contains(fmt.Sprint(q["question"]), "@gated:data://big is 300 KiB") || strings.Contains(fmt.Sprint(q["question"]), "\x1b") {
			t.Fatalf("the mention's question %v", q)
		}
		return id
	}
	ask()
	r.send("n")
	if e := r.next("NotSent"); !strings.Contains(fmt.Sprint(e["error"]), "not sent") {
		t.Errorf("NotSent %v", e)
	}
	id := ask()
	r.send(fmt.Sprintf(`{"id":%q,"action":"accept"}`, id))
	if resp := r.next("Response"); resp["text"] != "Read it." {
		t.Errorf("response %v", resp)
	}
	id = ask()
	r.stdin.Close()
	if c := r.next("QuestionClosed"); c["id"] != id || c["reason"] != terminal.NoAnswer {
		t.Errorf("closed %v, want %s closed for no answer", c, id)
	}
	r.next("NotSent")
	r.wait(0)
	if strings.Contains(r.errText(), "Attach it?") {
		t.Errorf("the question went to stderr too:\n%s", r.errText())
	}
}

// A model call that waits for a slow MCP server asks, in --json mode, an
// MCPWaiting question: a bare "skip" goes on without the server.
func TestRunJSONSkipsASlowMCPServer(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, _ := terminalEnv(t, `
turns:
  - reply: [{text: "Went on."}]
`)
	withGatedServer(t, ws, "slow", filepath.Join(t.TempDir(), "gate")) // never opens
	r := startJSON(t, bin, env, "--workspace", ws, "--prompt", "Go.")
	w := r.next("MCPWaiting")
	if w["id"] == nil || w["done"] == true || fmt.Sprint(w["servers"]) != "[slow]" {
		t.Fatalf("the wait is no question: %v", w)
	}
	r.send("skip")
	if done := r.next("MCPWaiting"); done["done"] != true || done["skipped"] != true || done["id"] != nil {
		t.Errorf("the wait did not end skipped: %v", done)
	}
	if resp := r.next("Response"); resp["text"] != "Went on." {
		t.Errorf("response %v", resp)
	}
	r.wait(0)
	if strings.Contains(r.transcript(), "QuestionClosed") {
		t.Errorf("the answered wait was closed:\n%s", r.transcript())
	}
}

// An MCPWaiting question nobody answers closes itself when the server
// connects; when stdin ends meanwhile it is closed for no answer and the
// call keeps waiting (no answer does not skip), with the server's tools.
func TestRunJSONMCPWaitClosesWhenTheServerConnects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		eof    bool
		reason string
	}{
		{"the server connects", false, "withdrawn: " + terminal.ErrWaitOver.Error()},
		{"stdin ends, then the server connects", true, terminal.NoAnswer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := freeactBinary(t)
			ws, env, _ := terminalEnv(t, `
turns:
  - expect:
      tools: [slow_fetch]
    reply: [{text: "Waited."}]
`)
			gate := filepath.Join(t.TempDir(), "gate")
			withGatedServer(t, ws, "slow", gate)
			r := startJSON(t, bin, env, "--workspace", ws, "--prompt", "Go.")
			w := r.next("MCPWaiting")
			if tc.eof {
				r.stdin.Close()
				if c := r.next("QuestionClosed"); c["id"] != w["id"] || c["reason"] != tc.reason {
					t.Fatalf("closed %v, want %v closed for %q", c, w["id"], tc.reason)
				}
			}
			if err := os.WriteFile(gate, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if !tc.eof {
				if c := r.next("QuestionClosed"); c["id"] != w["id"] || c["reason"] != tc.reason {
					t.Errorf("closed %v, want %v closed for %q", c, w["id"], tc.reason)
				}
			}
			if done := r.next("MCPWaiting"); done["done"] != true || done["skipped"] == true {
				t.Errorf("the wait did not end by the connection: %v", done)
			}
			if resp := r.next("Response"); resp["text"] != "Waited." {
				t.Errorf("response %v", resp)
			}
			r.wait(0)
		})
	}
}
