package desktop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/agent/seal"
	"github.com/freeact/desktop/internal/testenv"
)

// A resumed conversation shows who let each call run without a click, as
// the live one did: in auto mode a cell the sandbox bounds (by sandbox)
// and a file write a saved rule allows (by rule), replayed from the
// session file as AutoApproved events marked as history.
func TestDesktopResumedAutoModeCallsKeepTheirBadges(t *testing.T) {
	t.Setenv("PATH", testenv.SrtDir(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}}]
  - reply: [{call: {id: w1, name: filesystem_write_text_file, args: {path: notes.txt, content: "new notes\n"}}}]
  - reply: [{text: "Done."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	cfg, _ := json.Marshal(map[string]any{"python": testenv.Python(t), "enable_subagents": false, "sandbox": true, "checkpoints": true})
	if err := os.WriteFile(filepath.Join(ws, ".freeact", "agent.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	rules := `{"allow": [{"type": "FileWrite", "tool_name": "*", "path": "notes.txt"}], "ask": []}` + "\n"
	if err := os.WriteFile(filepath.Join(ws, ".freeact", "permissions.json"), []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	h.waitState(t, KernelReady)
	if st, err := d.SetApprovalMode("auto"); err != nil || st.Mode != "auto" || !st.Sandbox {
		t.Fatalf("auto mode: %+v, %v (want auto with the sandbox on)", st, err)
	}
	if err := d.Send("Print one, then write the notes.", nil); err != nil {
		t.Fatal(err)
	}
	live := map[string]string{}
	i := 0
	for {
		ev, j := h.waitEvent(t, "", i)
		i = j + 1
		if ev["type"] == "ApprovalRequest" {
			t.Fatalf("auto mode asked: %v", ev)
		}
		if ev["type"] == "AutoApproved" {
			live[ev["correlation_id"].(string)] = ev["by"].(string)
		}
		if ev["type"] == "TurnEnded" {
			break
		}
	}
	want := map[string]string{"c1": "sandbox", "w1": "rule"}
	if live["c1"] != want["c1"] || live["w1"] != want["w1"] {
		t.Fatalf("live badges %v, want %v", live, want)
	}
	h.waitState(t, KernelReady)

	if err := d.ResumeSession(h.lastStatus().SessionID); err != nil {
		t.Fatal(err)
	}
	// The history from the file shows first, then again once the agent
	// started (with the seal checked): the second is what stays.
	_, i = h.waitEvent(t, "Reset", i)
	_, i = h.waitEvent(t, "Reset", i+1)
	resumed := map[string]string{}
	for {
		var ev map[string]any
		ev, i = h.waitEvent(t, "", i+1)
		if ev["type"] == "AutoApproved" {
			if ev["history"] != true {
				t.Errorf("a replayed approval is not marked as history: %v", ev)
			}
			resumed[ev["correlation_id"].(string)] = ev["by"].(string)
		}
		if ev["type"] == "TurnEnded" && ev["history"] == true {
			break
		}
	}
	if resumed["c1"] != want["c1"] || resumed["w1"] != want["w1"] {
		t.Errorf("resumed badges %v, want %v", resumed, want)
	}
}

// A session written before calls kept who approved them still loads and
// shows its calls, without badges; a badge added to its code action's
// sealed record by hand shows none either.
func TestHistoryOfAnOlderSessionShowsNoBadges(t *testing.T) {
	key := seal.New([]byte("0123456789abcdef0123456789abcdef"))
	// The lines as this version's predecessor wrote them.
	lines := []string{
		`{"role":"user","parts":[{"text":"Go."}]}`,
		`{"role":"model","parts":[{"function_call":{"id":"c1","name":"ipybox_execute_ipython_cell","args":{"code":"print(1)"}}},{"function_call":{"id":"w1","name":"filesystem_write_text_file","args":{"path":"notes.txt","content":"n"}}}]}`,
		`{"role":"user","parts":[{"function_response":{"id":"c1","name":"ipybox_execute_ipython_cell","output":"1","ran":{"code":"print(1)","seal":"v2:76f3529fb9708a7be7b95d9edc6636135e390971c0521eb47ba6f2d6c47f0b1f","elapsed_ms":12},"elapsed_ms":12}},{"function_response":{"id":"w1","name":"filesystem_write_text_file","output":"Wrote notes.txt"}}]}`,
		`{"role":"model","parts":[{"text":"Done."}]}`,
	}
	load := func(lines []string) []model.Message {
		var msgs []model.Message
		for _, l := range lines {
			var m model.Message
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("an older session's line does not load: %v\n%s", err, l)
			}
			msgs = append(msgs, m)
		}
		return msgs
	}
	replay := func(msgs []model.Message) (outputs int, badges []string) {
		for _, raw := range historyEvents(msgs, historyExtras{sealed: key.Whole}) {
			var e struct{ Type, By string }
			if err := json.Unmarshal(raw, &e); err != nil {
				t.Fatal(err)
			}
			switch e.Type {
			case "ToolOutput":
				outputs++
			case "AutoApproved":
				badges = append(badges, e.By)
			}
		}
		return outputs, badges
	}
	if n, badges := replay(load(lines)); n != 2 || len(badges) != 0 {
		t.Errorf("an older session shows %d outputs and badges %v, want 2 and none", n, badges)
	}
	forged := append([]string(nil), lines...)
	forged[2] = strings.Replace(forged[2], `"elapsed_ms":12},`, `"elapsed_ms":12,"approved":{"by":"sandbox"}},`, 1)
	if forged[2] == lines[2] {
		t.Fatal("the forged line is the same")
	}
	if _, badges := replay(load(forged)); len(badges) != 0 {
		t.Errorf("a badge written into a sealed record by hand shows: %v", badges)
	}
}
