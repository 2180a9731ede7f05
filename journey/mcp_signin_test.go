//go:build journey

package journey

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/mcp/mcptest"
)

// Issue 26: an MCP server behind OAuth opens no browser while the agent
// starts: its banner says it needs a sign-in. Try again (the user's
// click) shows "Sign in to secured", with Copy link and Cancel; the
// browser ($BROWSER, a script that follows the redirect with curl once
// the journey lets it) signs in and the card and the banner go. The server's form, from a JSON tool call,
// is filled by keyboard: a bad email is refused in place, the fixed one
// accepted, and the model gets the answer. Settings → MCP servers shows
// the server connected and signed in with the token's expiry; Sign out
// turns it to "Needs sign-in", and Sign in connects it again. No token
// reaches the app's output, its session or its state files.
func TestMCPSignInFormAndSettings(t *testing.T) {
	atSizes(t, func(t *testing.T, w, h int) {
		auth := mcptest.NewOAuth(t)
		dir := t.TempDir()
		allow := filepath.Join(dir, "signed-in")
		browser := filepath.Join(dir, "browser")
		// The user is in the browser until the journey has looked at the
		// card (the file appears); then the redirect is followed.
		script := "#!/bin/sh\nwhile [ ! -e " + allow + " ]; do sleep 0.1; done\nexec curl -sfL -o /dev/null \"$1\"\n"
		if err := os.WriteFile(browser, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		ws := Workspace(t, map[string]any{"mcp_servers": map[string]any{"secured": auth.Server()}})
		app := Start(t, Options{Workspace: ws, Scenario: "testdata/mcp-form.yaml", Width: w, Height: h, Env: map[string]string{"BROWSER": browser}})

		app.WaitFor(Text("Kernel ready"))
		banner := Text("MCP server “secured” did not start")
		app.WaitFor(banner)
		if _, authz := auth.Counts(); authz != 0 {
			t.Fatalf("signed in %d times at the start, without a click", authz)
		}
		app.Shot("sign-in-needed")
		app.Click(Button("Try again to start secured"))
		card := Role("landmark", "Sign in to secured")
		app.WaitFor(card)
		app.WaitFor(Text("Sign in to secured in your browser"))
		app.WaitFor(Button("Copy link"))
		app.WaitFor(Button("Cancel"))
		app.Shot("sign-in-card")
		if err := os.WriteFile(allow, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		app.WaitGone(card)
		app.WaitGone(banner)
		if reg, authz := auth.Counts(); reg != 1 || authz != 1 {
			t.Errorf("registered %d and authorized %d times, want once each", reg, authz)
		}

		app.Send("Ask me who I am")
		app.WaitFor(Role("landmark", "Approval request"))
		app.Key("Return") // run the tool call
		app.WaitFor(Text("Tell us about yourself."))
		app.WaitFocus(Query{Name: "Age"})
		app.Shot("form")
		app.Key("Tab") // colour: its default stays
		app.Key("Tab")
		app.WaitFocus(Query{Name: "Email"})
		app.Type("ada")
		app.Key("Tab")
		app.WaitFocus(Query{Name: "Name"})
		app.Type("Ada")
		app.Key("Return")
		app.WaitFor(Text("Email must be an email address"))
		app.WaitFocus(Query{Name: "Email"})
		app.Shot("form-refused")
		app.Key("ctrl+a")
		app.Type("ada@example.org")
		app.Key("Return")
		app.WaitGone(Text("Tell us about yourself."))
		app.WaitFor(Text("Thanks, Ada."))
		app.WaitFor(Text("Kernel ready"))

		app.Click(Button("Settings"))
		app.WaitFor(Role("dialog", "Settings"))
		app.Click(Query{Role: "page tab", Name: "MCP servers"})
		app.WaitFor(Text("Connections"))
		app.WaitFor(Text("Connected, signed in; the token expires"))
		app.Shot("settings-signed-in")
		app.Click(Button("Sign out of secured"))
		app.WaitFor(Text("Signed out of secured"))
		app.WaitFor(Text("Needs sign-in"))
		app.Shot("settings-signed-out")
		app.Click(Button("Sign in to secured"))
		app.WaitFor(Text("Signed in to secured."))
		app.WaitFor(Text("Connected, signed in"))
		app.Shot("settings-signed-in-again")
		app.Key("Escape")
		app.WaitGone(Role("dialog", "Settings"))
		app.Stop()

		tokens := auth.Tokens()
		if len(tokens) < 4 {
			t.Fatalf("tokens issued: %v, want two sign-ins' worth", tokens)
		}
		places := map[string]string{"the app's output": app.Log()}
		for _, root := range []string{ws, filepath.Join(app.Home, ".local"), filepath.Join(app.Home, ".config")} {
			filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
				if err != nil || e.IsDir() || strings.Contains(p, filepath.Join("mcp-oauth", "tokens")) || strings.Contains(p, "python") {
					return nil
				}
				b, _ := os.ReadFile(p)
				places[p] = string(b)
				return nil
			})
		}
		for where, text := range places {
			for _, tok := range tokens {
				if strings.Contains(text, tok) {
					t.Errorf("token %s is in %s", tok, where)
				}
			}
		}
	})
}

// Issue 26: Cancel on the sign-in card (after Try again on the banner of
// a server that needs a sign-in) stops the sign-in; the card says so
// until dismissed, and Settings → MCP servers says it needs a sign-in.
func TestMCPSignInCancelled(t *testing.T) {
	atSizes(t, func(t *testing.T, w, h int) {
		auth := mcptest.NewOAuth(t)
		browser := filepath.Join(t.TempDir(), "browser")
		// A browser that opens and is never used.
		if err := os.WriteFile(browser, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		ws := Workspace(t, map[string]any{"mcp_servers": map[string]any{"secured": auth.Server()}})
		app := Start(t, Options{Workspace: ws, Width: w, Height: h, Env: map[string]string{"BROWSER": browser}})
		app.WaitFor(Text("Kernel ready"))
		app.Click(Button("Try again to start secured"))
		card := Role("landmark", "Sign in to secured")
		app.WaitFor(card)
		app.Click(Button("Cancel"))
		app.WaitFor(Text("Sign-in to secured cancelled"))
		app.Shot("sign-in-cancelled")
		app.Click(Button("Dismiss the sign-in to secured"))
		app.WaitGone(card)
		if _, authz := auth.Counts(); authz != 0 {
			t.Errorf("authorized %d times after Cancel", authz)
		}
		app.Click(Button("Settings"))
		app.WaitFor(Role("dialog", "Settings"))
		app.Click(Query{Role: "page tab", Name: "MCP servers"})
		app.WaitFor(Text("Needs sign-in"))
		app.Shot("settings-needs-sign-in")
	})
}

// Issue 26: a signed-in server's access token expires (the authorization
// server issues it for 60 s, and refuses it after); a tool call after
// that is answered without a second sign-in: no card, the browser opened
// once (Try again after the start), one refresh_token grant carrying the resource, made
// after the expiry. Settings → MCP servers shows the new token's expiry.
func TestMCPTokenRefreshedAfterExpiry(t *testing.T) {
	atSizes(t, func(t *testing.T, w, h int) {
		// Long enough for the start to end before the client sees the
		// token as about to expire (in the last half of its life).
		const lifetime = 60 * time.Second
		auth := mcptest.NewOAuth(t, mcptest.AccessLifetime(lifetime))
		dir := t.TempDir()
		runs, browser := filepath.Join(dir, "runs"), filepath.Join(dir, "browser")
		// The browser signs in the first time it is opened; a second sign-in
		// is left waiting, its card on screen.
		script := "#!/bin/sh\necho run >>" + runs + "\n[ \"$(wc -l <" + runs + ")\" -eq 1 ] || exit 0\nexec curl -sfL -o /dev/null \"$1\"\n"
		if err := os.WriteFile(browser, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		browserRuns := func() int {
			b, _ := os.ReadFile(runs)
			return strings.Count(string(b), "run")
		}
		ws := Workspace(t, map[string]any{"mcp_servers": map[string]any{"secured": auth.Server()}})
		app := Start(t, Options{Workspace: ws, Scenario: "testdata/mcp-refresh.yaml", Width: w, Height: h, Env: map[string]string{"BROWSER": browser}})
		app.WaitFor(Text("Kernel ready"))
		card := Role("landmark", "Sign in to secured")
		app.Click(Button("Try again to start secured"))
		app.WaitGone(Text("MCP server “secured” did not start"))

		signedIn := app.settingsExpiry("secured", "settings-first-token")
		grants := auth.Grants()
		if len(grants) != 1 || grants[0].Type != "authorization_code" {
			t.Fatalf("grants after the start: %+v, want one authorization_code grant", grants)
		}
		first := grants[0]
		if d := signedIn.Sub(first.Expiry).Abs(); d > 2*time.Second {
			t.Errorf("Settings shows the token expiring %v, the server says %v", signedIn, first.Expiry)
		}

		app.Wait("the first access token to expire", func() bool { return time.Now().After(first.Expiry) })
		app.Send("Echo something")
		app.WaitFor(Role("landmark", "Approval request"))
		app.Key("Return") // run the tool call
		answer := Text("The server answered after the refresh.")
		app.Wait("the answer, or a sign-in card", func() bool {
			_, carded := app.Find(card)
			_, answered := app.Find(answer)
			return carded || answered
		})
		if _, ok := app.Find(card); ok {
			t.Fatalf("a second sign-in was asked for after the token expired (screenshot %s)", app.Shot("second-sign-in"))
		}
		app.WaitFor(Text("Kernel ready"))
		app.Shot("answered-after-expiry")
		if n := browserRuns(); n != 1 {
			t.Errorf("the browser was opened %d times, want once (the first sign-in)", n)
		}
		if reg, authz := auth.Counts(); reg != 1 || authz != 1 {
			t.Errorf("registered %d and authorized %d times, want once each", reg, authz)
		}
		grants = auth.Grants()
		if len(grants) != 2 {
			t.Fatalf("grants: %+v, want the sign-in's and one refresh", grants)
		}
		refresh := grants[1]
		if refresh.Type != "refresh_token" || refresh.Resource != auth.URL() {
			t.Errorf("second grant: %+v, want refresh_token with resource %s", refresh, auth.URL())
		}
		if refresh.At.Before(first.Expiry) {
			t.Errorf("refreshed at %v, before the token expired at %v: the start took too long for this journey, or something refreshed early", refresh.At, first.Expiry)
		}

		renewed := app.settingsExpiry("secured", "settings-renewed-token")
		if d := renewed.Sub(refresh.Expiry).Abs(); d > 2*time.Second {
			t.Errorf("Settings shows the token expiring %v after the refresh, the server says %v", renewed, refresh.Expiry)
		}
	})
}

// expiresAt reads the expiry out of an MCP server's state in Settings.
var expiresAt = regexp.MustCompile(`signed in; the token expires (.+) \(renewed without asking\)`)

// settingsExpiry opens Settings → MCP servers, reads when the token of
// server expires (as the app's en-US locale writes it), takes the shot and
// closes Settings.
func (a *App) settingsExpiry(server, shot string) time.Time {
	a.t.Helper()
	a.Click(Button("Settings"))
	a.WaitFor(Role("dialog", "Settings"))
	a.Click(Query{Role: "page tab", Name: "MCP servers"})
	n := a.WaitFor(Text("Connected, signed in; the token expires"))
	m := expiresAt.FindStringSubmatch(n.Text)
	if m == nil {
		a.t.Fatalf("the state of %s reads %q, want a refreshable token's expiry", server, n.Text)
	}
	at, err := time.ParseInLocation("1/2/2006, 3:04:05 PM", strings.ReplaceAll(m[1], "\u202f", " "), time.Local)
	if err != nil {
		a.t.Fatalf("the expiry %q is not in the en-US form: %v", m[1], err)
	}
	a.Shot(shot)
	a.Key("Escape")
	a.WaitGone(Role("dialog", "Settings"))
	return at
}
