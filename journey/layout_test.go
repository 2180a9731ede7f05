//go:build journey

package journey

import "testing"

// Issue 12, also expected: at 800×600 the approval bar summarises a long
// cell in a few lines, points at the outlined card and leaves the
// conversation readable; scrolled up, "Jump to latest" appears and takes
// the view back; sending scrolls to the latest.
func TestApprovalBarAndFollowingAt800x600(t *testing.T) {
	ws := Workspace(t, nil)
	app := Start(t, Options{Workspace: ws, Scenario: "testdata/layout.yaml", Width: 800, Height: 600})
	app.WaitFor(Text("Kernel ready"))
	app.Send("Run a long cell")
	bar := app.WaitFor(Role("landmark", "Approval request"))
	app.WaitFor(Text("42 lines · 39 more in the highlighted card"))
	app.Shot("approval-800x600")
	conv := app.WaitFor(Role("landmark", "Conversation"))
	if bar.H > 200 {
		t.Errorf("the approval bar is %d px high at 800×600, want a summary of at most 200", bar.H)
	}
	if conv.H < 200 {
		t.Errorf("the conversation keeps %d px at 800×600, want at least 200", conv.H)
	}
	// The header keeps every control in the window, Settings last.
	if set, ok := app.Find(Button("Settings")); !ok || set.W == 0 || set.X+set.W > conv.X+conv.W {
		t.Errorf("Settings is at %+v, outside the window (%+v): the header overflows at 800 px", set, conv)
	}
	if _, ok := app.Find(Text("value_40 = 40 * 2")); !ok {
		t.Error("the highlighted card does not show the whole cell")
	}
	app.Click(Button("Show in conversation"))
	app.Shot("card-shown")
	app.Key("Return")
	app.WaitFor(Text("It printed 300 lines."))

	// Scrolled up, the view stays and offers the way back.
	app.ScrollUp(Text("It printed 300 lines."), 3)
	app.WaitFor(Button("Jump to latest"))
	app.Shot("scrolled-up")
	app.Click(Button("Jump to latest"))
	app.WaitGone(Button("Jump to latest"))

	// Scrolled up again, sending brings the latest into view.
	app.ScrollUp(Text("It printed 300 lines."), 3)
	app.WaitFor(Button("Jump to latest"))
	app.Send("And now?")
	app.WaitFor(Text("Now you see the latest."))
	app.WaitGone(Button("Jump to latest"))
	answer := app.WaitFor(Text("Now you see the latest."))
	conv = app.WaitFor(Role("landmark", "Conversation"))
	if answer.Y < conv.Y || answer.Y+answer.H > conv.Y+conv.H {
		t.Errorf("the answer is at y=%d, outside the conversation's view %d–%d", answer.Y, conv.Y, conv.Y+conv.H)
	}
	app.Shot("latest-after-send")
}

// The window in the dark theme (GTK's dark variant, which WebKit passes
// to the page as prefers-color-scheme: dark), for a person to look at.
func TestDarkThemeScreens(t *testing.T) {
	ws := Workspace(t, nil)
	app := Start(t, Options{Workspace: ws, Scenario: "testdata/auto-approved.yaml", Env: map[string]string{"GTK_THEME": "Adwaita:dark"}})
	app.WaitFor(Text("Kernel ready"))
	app.Send("Plot a line")
	app.WaitFor(Role("landmark", "Approval request"))
	app.Shot("dark-approval")
	app.Key("s")
	app.WaitFor(Text("Both cells ran."))
	app.WaitFor(Button("Enlarge image"))
	app.Shot("dark-auto-approved")
	app.Click(Button("1 session grant"))
	app.Shot("dark-grants")
	app.Stop()

	// The failure card and the kernel's error, dark.
	dark := map[string]string{"GTK_THEME": "Adwaita:dark"}
	app = Start(t, Options{Home: app.Home, Workspace: Workspace(t, nil), Scenario: "testdata/missing-key.yaml", NoAPIKey: true, Env: dark})
	app.WaitFor(Text("Kernel ready"))
	app.Send("Hello there")
	app.WaitFor(Query{Role: "password text", Name: "GEMINI_API_KEY"})
	app.Shot("dark-key-card")
	app.Stop()
	app = Start(t, Options{Home: app.Home, Workspace: Workspace(t, map[string]any{"python": "/no/such/python3"}), Env: dark})
	app.WaitFor(Text("The kernel's Python could not be used."))
	app.Shot("dark-kernel-problem")
}
