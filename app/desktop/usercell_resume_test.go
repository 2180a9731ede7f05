package desktop

import (
	"encoding/json"
	"testing"
)

// A cell the user ran, resumed in the window, shows as it did live: under
// the id it ran under, with its image, its time, and the files it changed
// with their checkpoint (Review, Revert), in a real kernel.
func TestDesktopShowsAResumedUserCellAsItRan(t *testing.T) {
	d, h, _ := scenarioDesktop(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}}]
  - reply: [{text: "Done."}]
`)
	if err := d.Send("Print one.", nil); err != nil {
		t.Fatal(err)
	}
	appr, i := h.waitEvent(t, "ApprovalRequest", 0)
	if err := d.Approve(appr["request_id"].(string), "yes", ""); err != nil {
		t.Fatal(err)
	}
	i = waitTurnEnded(t, h, i)
	h.waitState(t, KernelReady)

	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
	code := "import base64\nfrom IPython.display import Image, display\nopen('made.txt', 'w').write('x')\ndisplay(Image(data=base64.b64decode('" + png + "')))"
	if err := d.RunCell(code, "c1", "rerun"); err != nil {
		t.Fatal(err)
	}
	started, j := h.waitEvent(t, "CellStarted", i)
	run := started["correlation_id"]
	live, _ := h.waitEvent(t, "CodeExecutionOutput", j)
	changed, _ := h.waitEvent(t, "FilesChanged", j)
	if live["correlation_id"] != run || changed["correlation_id"] != run || len(live["images"].([]any)) != 1 {
		t.Fatalf("live: output %v, files %v of cell %v", live, changed, run)
	}
	i = waitTurnEnded(t, h, j)
	h.waitState(t, KernelReady)

	id := h.lastStatus().SessionID
	if err := d.ResumeSession(id); err != nil {
		t.Fatal(err)
	}
	// The history from the file shows first; once the agent started, it
	// shows again with what only the agent knows (the files changed).
	_, i = h.waitEvent(t, "Reset", i)
	_, i = h.waitEvent(t, "Reset", i+1)
	var out, files map[string]any
	for {
		var ev map[string]any
		ev, i = h.waitEvent(t, "", i+1)
		if ev["type"] == "TurnStarted" && out != nil {
			break // the prompt's turn after the cell, or the end
		}
		if ev["correlation_id"] != run {
			if ev["type"] == "SessionUsage" {
				break
			}
			continue
		}
		switch ev["type"] {
		case "CodeExecutionOutput":
			out = ev
		case "FilesChanged":
			files = ev
		}
		if out != nil && files != nil {
			break
		}
	}
	if out == nil || files == nil {
		t.Fatalf("the resumed history has no output or no files for cell %v: output %v, files %v", run, out, files)
	}
	liveImages, _ := json.Marshal(live["images"])
	images, _ := json.Marshal(out["images"])
	if string(images) != string(liveImages) || out["elapsed_ms"] == nil || out["elapsed_ms"].(float64) <= 0 {
		t.Errorf("resumed output %v, want images %s and a time", out, liveImages)
	}
	if files["checkpoint"] != changed["checkpoint"] || files["checkpoint"] == "" {
		t.Errorf("resumed files %v, want checkpoint %v", files, changed["checkpoint"])
	}
}
