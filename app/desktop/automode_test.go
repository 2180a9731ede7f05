package desktop

import (
	"testing"

	"github.com/freeact/desktop/agent/model/modeltest"
)

// The header's switch sets the conversation's approval mode: in auto
// mode (sandbox off here) a file write goes to the judge, whose allow
// runs it without a click, saying why; the mode outlives applied
// settings, and a bad name is refused with the names to use.
func TestDesktopApprovalModeSwitch(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: w1, name: filesystem_write_text_file, args: {path: notes.txt, content: "new notes\n"}}}]
  - expect: {system_contains: "You review one action"}
    reply: [{text: '{"verdict":"allow","reason":"the user asked for notes"}'}]
    usage: {input: 100, output: 5}
  - reply: [{text: "Written."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	h.waitState(t, KernelReady)
	if st, err := d.ApprovalMode(); err != nil || st.Mode != "rules" || st.Paused {
		t.Fatalf("a new conversation's mode %+v, %v; want rules", st, err)
	}
	if _, err := d.SetApprovalMode("yolo"); err == nil {
		t.Error("an unknown mode was taken")
	}
	st, err := d.SetApprovalMode("auto")
	if err != nil || st.Mode != "auto" || st.Sandbox {
		t.Fatalf("after switching to auto: %+v, %v (want auto with the sandbox off)", st, err)
	}
	if err := d.Send("Write the notes.", nil); err != nil {
		t.Fatal(err)
	}
	i := 0
	for {
		ev, j := h.waitEvent(t, "", i)
		i = j + 1
		if ev["type"] == "ApprovalRequest" {
			t.Fatalf("auto mode asked: %v", ev)
		}
		if ev["type"] == "AutoApproved" && (ev["by"] != "judge" || ev["reason"] != "the user asked for notes") {
			t.Errorf("auto approval %v", ev)
		}
		if ev["type"] == "TurnEnded" {
			break
		}
	}
	h.waitEvent(t, "AutoApproved", 0)
	h.waitState(t, KernelReady)
	// Applied settings start a new agent on the same conversation.
	n := h.statusCount()
	if err := d.ApplySettings(); err != nil {
		t.Fatal(err)
	}
	h.waitStatusAfter(t, KernelStarting, n)
	h.waitStatusAfter(t, KernelReady, n)
	if st, err := d.ApprovalMode(); err != nil || st.Mode != "auto" {
		t.Errorf("after applied settings the mode is %+v, %v; want auto", st, err)
	}
}
