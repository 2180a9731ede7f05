//go:build journey

package journey

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/internal/remotetest"
	"github.com/freeact/desktop/kernel/hub"
)

// Issue 40: a workspace whose jupyter_url is a real JupyterHub starts
// without a token and says how to sign in; Settings (from the failure)
// opens on Kernel, whose JupyterHub card takes the token in a masked
// field and says "Signed in as ada"; Retry starts the user's stopped
// server, its progress (the spawner's own message) shown while it
// starts, and a cell runs there, as ada. The token is never in the
// workspace nor in the app's output.
func TestHubSignInFromSettingsAndRun(t *testing.T) {
	atSizes(t, func(t *testing.T, w, h int) {
		ws := Workspace(t, nil)
		// The Hub's servers cannot see the workspace's folder.
		hb := remotetest.StartHub(t, remotetest.Options{Hide: filepath.Dir(ws)})
		cfg, _ := json.Marshal(map[string]any{"jupyter_url": hb.URL, "enable_subagents": false})
		if err := os.WriteFile(filepath.Join(ws, ".freeact", "agent.json"), cfg, 0o644); err != nil {
			t.Fatal(err)
		}
		token, _ := hb.Token(remotetest.HubUser, hub.Scopes...)
		app := Start(t, Options{Workspace: ws, Scenario: "testdata/hub.yaml", Width: w, Height: h})

		failure := Text("The JupyterHub needs you to sign in.")
		app.WaitFor(failure)
		app.WaitFor(Text("Paste a token from the Hub's token page in Settings → Kernel"))
		app.Shot("hub-no-token")
		app.Click(Query{Role: "push button", Name: "Settings", Exact: true})
		app.WaitFor(Role("dialog", "Settings"))
		app.Click(Query{Role: "page tab", Name: "Kernel"})
		field := Query{Role: "password text", Name: "JupyterHub token"}
		app.WaitFor(field)
		app.WaitFor(Text("JUPYTERHUB_TOKEN_127_0_0_1_"))
		app.Shot("hub-card")
		app.Click(field)
		app.Type(token)
		app.Click(Button("Sign in with the token"))
		app.WaitFor(Button("Sign out of the JupyterHub"))
		app.WaitFor(Text("The agent uses the Hub from its next start"))
		app.WaitFocus(Button("Sign out of the JupyterHub"))
		app.Shot("hub-signed-in")
		app.Key("Escape")
		app.WaitGone(Role("dialog", "Settings"))

		hb.HoldStarts()
		app.Click(Button("Retry"))
		// The header says it (and the bar below it moves).
		app.WaitFor(Role("status bar", "JupyterHub: "+remotetest.SpawnerMessage))
		app.Shot("hub-server-starting")
		hb.ReleaseStarts()
		app.WaitGone(failure)
		app.WaitFor(Text("Kernel ready"))
		app.Send("Where does code run?")
		app.WaitFor(Role("landmark", "Approval request"))
		app.Key("Return")
		app.WaitFor(Text("It ran on the Hub, as ada."))
		app.WaitFor(Text("on the hub as ada"))
		app.Shot("hub-cell-ran")
		app.Stop()

		if strings.Contains(app.Log(), token) {
			t.Error("the token is in the app's output")
		}
		filepath.WalkDir(ws, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				if b, _ := os.ReadFile(p); strings.Contains(string(b), token) {
					t.Errorf("the token is in %s", p)
				}
			}
			return nil
		})
	})
}
