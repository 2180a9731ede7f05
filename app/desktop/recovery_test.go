package desktop

import (
	"encoding/json"
	"github.com/freeact/desktop/agent/failure"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/internal/testenv"
)

// writeAgentJSON replaces the workspace's agent.json.
func writeAgentJSON(t *testing.T, ws string, opts map[string]any) {
	t.Helper()
	b, _ := json.Marshal(opts)
	if err := os.WriteFile(filepath.Join(ws, ".freeact", "agent.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Settings that fail to apply (here an interpreter that is gone; in the
// window a sandbox that cannot start) leave the open conversation in
// place: no Reset reaches the window, and Retry after the fix carries on
// with the same session, whose history the model gets.
func TestFailedApplyKeepsTheConversation(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{text: "Hello to you."}]
  - expect:
      has: [{role: user, text: "Hello."}, {role: model, text: "Hello to you."}]
      last: [{role: user, text: "Still there?"}]
    reply: [{text: "Yes."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	fake := modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	ready := h.waitState(t, KernelReady)
	if err := d.Send("Hello.", nil); err != nil {
		t.Fatal(err)
	}
	_, ended := h.waitEvent(t, "TurnEnded", 0)
	h.waitState(t, KernelReady)

	writeAgentJSON(t, ws, map[string]any{"python": filepath.Join(ws, "gone", "python3"), "enable_subagents": false})
	n := h.statusCount()
	if err := d.ApplySettings(); err != nil {
		t.Fatal(err)
	}
	st := h.waitStatusAfter(t, KernelError, n)
	if st.Problem != failure.StepPython || !strings.Contains(st.Fix, "python") || st.Summary == "" {
		t.Errorf("failed status %+v, want the python step with its fix", st)
	}
	if err := d.Send("Still there?", nil); err == nil || !strings.Contains(err.Error(), "Retry") {
		t.Errorf("Send after the failed apply = %v", err)
	}
	if h.countAfter("Reset", ended) != 0 {
		t.Error("the failed apply emptied the conversation in the window")
	}

	writeAgentJSON(t, ws, map[string]any{"python": testenv.Python(t), "enable_subagents": false})
	n = h.statusCount()
	if err := d.RetryKernel(); err != nil {
		t.Fatal(err)
	}
	if st := h.waitStatusAfter(t, KernelReady, n); st.SessionID != ready.SessionID {
		t.Errorf("retry started session %q, want the open one %q", st.SessionID, ready.SessionID)
	}
	if err := d.Send("Still there?", nil); err != nil {
		t.Fatal(err)
	}
	if r, _ := h.waitEvent(t, "Response", ended); r["text"] != "Yes." {
		t.Errorf("response after the retry = %v", r)
	}
	if len(fake.Requests()) != 2 {
		t.Errorf("%d model requests, want 2", len(fake.Requests()))
	}
}

// A missing key fails the turn with cause api_key (the kernel is ready all
// the same); storing the key makes the same prompt go through.
func TestMissingKeyThenStored(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - expect:
      messages: 1
      last: [{role: user, text: "Hello."}]
    reply: [{text: "Hi."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	fake := modeltest.NewGemini(t, sc)
	t.Setenv("GOOGLE_GEMINI_BASE_URL", fake.URL())
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "")
	d, h, ws := testDesktop(t)
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	h.waitState(t, KernelReady)
	if err := d.Send("Hello.", nil); err != nil {
		t.Fatal(err)
	}
	f, i := h.waitEvent(t, "Failed", 0)
	if f["cause"] != failure.CauseAPIKey || f["key_env"] != "GEMINI_API_KEY" {
		t.Fatalf("failed event %v", f)
	}
	h.waitEvent(t, "TurnEnded", i)
	h.waitState(t, KernelReady)
	if _, err := d.SetAPIKey("GEMINI_API_KEY", " stored-key "); err != nil {
		t.Fatal(err)
	}
	if err := d.Send("Hello.", nil); err != nil {
		t.Fatal(err)
	}
	if r, _ := h.waitEvent(t, "Response", i); r["text"] != "Hi." {
		t.Errorf("response = %v", r)
	}
	if reqs := fake.Requests(); len(reqs) != 1 || reqs[0].APIKey != "stored-key" {
		t.Errorf("the model got %d requests (key %q)", len(reqs), reqs[0].APIKey)
	}
}

// Dropped or chosen files are checked: images get a thumbnail, anything
// else says why it cannot be attached; an image the conversation shows
// can be saved elsewhere.
func TestAttachmentsAndSavedImages(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "fake-key")
	d, h, ws := testDesktop(t)
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	img := image.NewRGBA(image.Rect(0, 0, 400, 200))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var pngPath = filepath.Join(ws, "plot.png")
	f, err := os.Create(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	f.Close()
	outside := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(outside, []byte("text"), 0o644); err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(ws, "fake.png")
	if err := os.WriteFile(fake, []byte("not a png"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := d.CheckAttachments([]string{pngPath, outside, fake, "missing.png"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("%d infos", len(got))
	}
	if got[0].Problem != "" || !strings.HasPrefix(got[0].Preview, "data:image/png;base64,") || got[0].Relative != "plot.png" {
		t.Errorf("png: %+v", got[0])
	}
	if got[1].Problem == "" || !strings.Contains(got[1].Problem, "not an image") || got[1].Relative != "" {
		t.Errorf("text file outside: %+v", got[1])
	}
	if !strings.Contains(got[2].Problem, "not an image") {
		t.Errorf("a .png that is no image: %+v", got[2])
	}
	if !strings.Contains(got[3].Problem, "cannot be read") || got[3].Path != filepath.Join(ws, "missing.png") {
		t.Errorf("missing file: %+v", got[3])
	}

	h.picked = []string{pngPath, outside}
	if ps, err := d.PickImages(); err != nil || len(ps) != 2 {
		t.Errorf("PickImages = %v, %v", ps, err)
	}

	h.saveTo = filepath.Join(t.TempDir(), "copy.png")
	if p, err := d.SaveImage("plot.png"); err != nil || p != h.saveTo {
		t.Fatalf("SaveImage = %q, %v", p, err)
	}
	if a, b := mustRead(t, pngPath), mustRead(t, h.saveTo); string(a) != string(b) {
		t.Error("the saved copy differs")
	}
	h.saveTo = filepath.Join(t.TempDir(), "attached.png")
	if _, err := d.SaveImage(got[0].Preview); err != nil || len(mustRead(t, h.saveTo)) == 0 {
		t.Errorf("SaveImage of a data URL: %v", err)
	}
	if _, err := d.SaveImage("/etc/passwd"); err == nil {
		t.Error("SaveImage read a file outside the workspace")
	}
	if err := d.CopyImage("plot.png"); err != nil || string(h.copied) != string(mustRead(t, pngPath)) {
		t.Errorf("CopyImage = %v, copied %d bytes", err, len(h.copied))
	}
	if err := d.CopyImage("fake.png"); err == nil {
		t.Error("CopyImage of a file that is no image succeeded")
	}
	if url, err := d.ClipboardImage(); err != nil || !strings.HasPrefix(url, "data:image/png;base64,") {
		t.Errorf("ClipboardImage = %.40q, %v", url, err)
	}
	h.copied = nil
	if url, err := d.ClipboardImage(); err != nil || url != "" {
		t.Errorf("ClipboardImage of an empty clipboard = %.40q, %v", url, err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
