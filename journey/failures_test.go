//go:build journey

package journey

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/internal/testenv"
)

// Issue 12, items 5 and 6: a missing API key is asked for in place (not
// reported as a kernel failure); saving it sends the same prompt, which
// was never lost.
func TestMissingKeyIsAskedForInPlace(t *testing.T) {
	ws := Workspace(t, nil)
	app := Start(t, Options{Workspace: ws, Scenario: "testdata/missing-key.yaml", NoAPIKey: true})
	// The kernel starts without a key: only a turn needs one.
	app.WaitFor(Text("Kernel ready"))
	app.Send("Hello there")
	app.WaitFor(Text("No API key for google:gemini-3-flash-preview."))
	keyField := Query{Role: "password text", Name: "GEMINI_API_KEY"}
	app.WaitFor(keyField)
	app.Shot("key-asked")
	if _, ok := app.Find(Text("Kernel failed")); ok {
		t.Error("a missing key is reported as a kernel failure")
	}
	if box, _ := app.Find(Field("Message to the agent")); box.Text != "Hello there" {
		t.Errorf("the prompt box holds %q after the failure, want the prompt back", box.Text)
	}
	if f, _ := app.Focused(); f.Name != "GEMINI_API_KEY" {
		t.Errorf("the focus is on %+v, want the key field", f)
	}
	if len(app.Model.Requests()) != 0 {
		t.Error("the model was called without a key")
	}
	app.Click(keyField)
	app.Type("typed-in-the-card")
	app.Key("Return")
	app.WaitFor(Text("Hello, now with a key."))
	app.Shot("answered-with-the-key")
	req := app.Model.WaitRequests(1)[0]
	if req.APIKey != "typed-in-the-card" || len(req.Messages) != 1 {
		t.Errorf("the model got key %q and %d messages, want the typed key and the prompt once", req.APIKey, len(req.Messages))
	}
	app.WaitGone(Role("alert", "The request failed"))
	if box, _ := app.Find(Field("Message to the agent")); box.Text != "" {
		t.Errorf("the prompt box still holds %q after the retry", box.Text)
	}
	creds, err := os.ReadFile(filepath.Join(app.Home, ".config", "freeact", "credentials.json"))
	if err != nil || !strings.Contains(string(creds), `"GEMINI_API_KEY": "typed-in-the-card"`) {
		t.Errorf("the key is not stored in the app's credentials: %s %v", creds, err)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, ".env")); strings.Contains(string(data), "typed-in-the-card") {
		t.Error("the key was written into the workspace")
	}
}

// A provider error is said in plain words with the provider's own
// message; Retry sends the prompt again (kept, and not repeated in the
// history) and Model settings opens the model field.
func TestProviderErrorRetriesWithThePrompt(t *testing.T) {
	ws := Workspace(t, nil)
	app := Start(t, Options{Workspace: ws, Scenario: "testdata/provider-error.yaml"})
	app.WaitFor(Text("Kernel ready"))
	app.Send("Summarise the project")
	app.WaitFor(Text(`The provider does not know the model "gemini-3-flash-preview" (HTTP 404).`))
	app.WaitFor(Text("models/gemini-3-flash-preview is not found"))
	app.Shot("provider-error")
	if box, _ := app.Find(Field("Message to the agent")); box.Text != "Summarise the project" {
		t.Errorf("the prompt box holds %q after the failure, want the prompt back", box.Text)
	}

	app.Click(Button("Model settings"))
	app.WaitFor(Role("dialog", "Settings"))
	app.Wait("the model field focused", func() bool { f, ok := app.Focused(); return ok && f.Name == "Model" })
	app.Shot("model-setting")
	app.Key("Escape")
	app.WaitGone(Role("dialog", "Settings"))

	app.Click(Button("Retry"))
	app.WaitFor(Text("Found the model this time."))
	app.Shot("retried")
	reqs := app.Model.WaitRequests(2)
	for i, r := range reqs {
		if len(r.Messages) != 1 || r.Last().Text() != "Summarise the project" {
			t.Errorf("request %d has %d messages, want the prompt once", i+1, len(r.Messages))
		}
	}
	if n := len(app.FindAll(Query{Role: "section", Text: "Summarise the project", Exact: false})); n != 1 {
		t.Errorf("the prompt shows %d times in the conversation, want once", n)
	}
}

// A kernel that cannot start says what failed and how to fix it, with
// Retry.
func TestKernelProblemSaysWhatFailed(t *testing.T) {
	ws := Workspace(t, map[string]any{"python": "/no/such/python3"})
	app := Start(t, Options{Workspace: ws})
	app.WaitFor(Text("The kernel's Python could not be used."))
	app.WaitFor(Text("/no/such/python3"))
	app.WaitFor(Text("Correct the python setting"))
	app.Shot("kernel-problem")
	cfg, _ := json.Marshal(map[string]any{"python": testenv.Python(t), "enable_subagents": false})
	if err := os.WriteFile(filepath.Join(ws, ".freeact", "agent.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	app.Click(Button("Retry"))
	app.WaitFor(Text("Kernel ready"))
	app.WaitGone(Text("The kernel's Python could not be used."))
	app.Shot("retried")
}

// A sandbox that cannot start (srt is not on PATH here) fails the apply;
// the open conversation stays, and after turning the sandbox off again
// the agent carries it on.
func TestFailedSandboxApplyKeepsTheConversation(t *testing.T) {
	ws := Workspace(t, nil)
	app := Start(t, Options{Workspace: ws, Scenario: "testdata/sandbox-apply.yaml", Env: map[string]string{"PATH": "/usr/bin:/bin"}})
	app.WaitFor(Text("Kernel ready"))
	app.Send("Remember the number 42")
	app.WaitFor(Text("I will remember 42."))

	sandbox := func(on bool) {
		app.Click(Button("Settings"))
		app.Click(Query{Role: "page tab", Name: "Sandbox"})
		app.Click(Query{Name: "Run code in the sandbox"})
		app.Click(Button("Save sandbox settings"))
		app.Click(Button("Apply now"))
		app.Shot(map[bool]string{true: "sandbox-on", false: "sandbox-off"}[on])
		// The settings dialog is modal: the page behind it is hidden from
		// the accessibility tree until it closes.
		app.Key("Escape")
		app.WaitGone(Role("dialog", "Settings"))
	}
	sandbox(true)
	app.WaitFor(Text("The sandbox could not be set up."))
	app.WaitFor(Text("sandbox mode needs srt"))
	app.WaitFor(Text("Remember the number 42"))
	app.WaitFor(Text("I will remember 42."))
	app.Shot("conversation-kept")

	sandbox(false)
	app.WaitFor(Text("Kernel ready"))
	app.WaitFor(Text("I will remember 42."))
	app.Send("Which number?")
	app.WaitFor(Text("The number was 42."))
	app.Shot("carried-on")
	if n := len(app.Model.WaitRequests(2)[1].Messages); n != 3 {
		t.Errorf("the model got %d messages after the recovery, want the whole conversation (3)", n)
	}
}
