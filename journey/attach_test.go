//go:build journey

package journey

import (
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 12, item 3: images dragged from a file manager (a GTK drag source
// offering text/uri-list, moved with real pointer events) attach with a
// visible drop zone; a file that is not an image gets a note; the prompt
// has the focus after the drop. Paste, @path and the Attach button's
// multi-select chooser attach images too. The model gets every image.
func TestImagesDroppedPastedReferencedAndChosen(t *testing.T) {
	ws := Workspace(t, nil)
	pictures := t.TempDir() // a folder outside the workspace, like ~/Pictures
	red := PNG(t, filepath.Join(pictures, "red.png"), 64, 48, color.RGBA{R: 200, A: 255})
	blue := PNG(t, filepath.Join(pictures, "blue.png"), 48, 64, color.RGBA{B: 200, A: 255})
	notes := filepath.Join(ws, "notes.txt")
	if err := os.WriteFile(notes, []byte("not an image\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	PNG(t, filepath.Join(ws, "green.png"), 32, 32, color.RGBA{G: 200, A: 255})
	PNG(t, filepath.Join(ws, "yellow.png"), 40, 40, color.RGBA{R: 220, G: 220, A: 255})
	PNG(t, filepath.Join(ws, "purple.png"), 40, 40, color.RGBA{R: 120, B: 160, A: 255})
	app := Start(t, Options{Workspace: ws, Scenario: "testdata/attach.yaml"})
	app.WaitFor(Text("Kernel ready"))

	// Drop two images and a text file on the conversation.
	app.DragFiles(Role("landmark", "Conversation"), Text("Drop images to attach them"), red, blue, notes)
	app.WaitFor(Role("list item", "red.png"))
	app.WaitFor(Role("list item", "blue.png"))
	app.WaitFor(Text("notes.txt is not an image"))
	app.WaitGone(Text("Drop images to attach them"))
	app.Shot("dropped")
	if f, ok := app.Focused(); !ok || f.Role != "entry" || f.Name != "Message to the agent" {
		t.Errorf("after the drop the focus is on %+v, want the prompt", f)
	}
	if box, _ := app.Find(Field("Message to the agent")); !strings.Contains(box.Text, "@notes.txt") {
		t.Errorf("the prompt holds %q, want the text file mentioned as @notes.txt", box.Text)
	}
	app.Type("Describe these")
	app.Key("Return")
	app.WaitFor(Text("Two images received."))
	req := app.Model.WaitRequests(1)[0]
	if n := images(req.Last()); n != 2 {
		t.Errorf("the model got %d images with the dropped files, want 2", n)
	}

	// @path: a workspace image named in the prompt, completed with Tab.
	app.Click(Field("Message to the agent"))
	app.Type("@gre")
	app.WaitFor(Role("list box", "Completions"))
	app.Key("Tab")
	app.Type("look at it")
	app.Key("Return")
	app.WaitFor(Text("Got the referenced image."))
	req = app.Model.WaitRequests(2)[1]
	if n := images(req.Last()); n != 1 || !strings.Contains(req.Last().Text(), "@green.png look at it") {
		t.Errorf("the model got %d images and %q for the @path prompt", n, req.Last().Text())
	}

	// Paste an image copied in another program.
	app.CopyImage(red)
	app.Click(Field("Message to the agent"))
	app.Key("ctrl+v")
	app.WaitFor(Role("panel", "Attachments"))
	app.Shot("pasted")
	app.Type("and this one")
	app.Key("Return")
	app.WaitFor(Text("Got the pasted image."))
	if n := images(app.Model.WaitRequests(3)[2].Last()); n != 1 {
		t.Errorf("the model got %d images with the paste, want 1", n)
	}

	// The Attach button opens the native chooser, in the workspace, where
	// several images are chosen at once.
	app.Click(Button("Attach"))
	app.WaitFor(Role("file chooser", "Attach images"))
	app.Click(Query{Role: "table cell", Name: "purple.png", Exact: true})
	app.ClickWith("ctrl", Query{Role: "table cell", Name: "yellow.png", Exact: true})
	app.Shot("chooser")
	// Exact: the window's header has an "Open notebook" button too.
	app.Click(Query{Role: "push button", Name: "Open", Exact: true})
	app.WaitFor(Role("list item", "purple.png"))
	app.WaitFor(Role("list item", "yellow.png"))
	app.Shot("chosen")
	app.Click(Field("Message to the agent"))
	app.Type("the chosen ones")
	app.Key("Return")
	app.WaitFor(Text("Got the chosen images."))
	if n := images(app.Model.WaitRequests(4)[3].Last()); n != 2 {
		t.Errorf("the model got %d chosen images, want 2", n)
	}
	app.Shot("answered")
}
