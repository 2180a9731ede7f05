// Package journey drives the production desktop app as a person does: the
// real binary on an X display (Xvfb in `make test-journey`), its window
// found by title, read through the accessibility bus (what a screen reader
// sees: roles, names, text and where each element is on screen, see
// atspi.py), clicked and typed into with xdotool, files dragged onto it
// from a GTK drag source (dragsource.py), and a screenshot taken at every
// step into test-output/journey/. The model is the fake Gemini server
// (app/internal/fakemodel) playing a scenario, whose request log says what
// the model received.
//
// A journey is a Go test with the build tag journey:
//
//	app := journey.Start(t, journey.Options{Workspace: ws, Scenario: "testdata/hello.yaml"})
//	app.WaitFor(journey.Text("Kernel ready"))
//	app.Click(journey.Field("Message to the agent"))
//	app.Type("Hello")
//	app.Key("Return")
//	reqs := app.Model.WaitRequests(1)
//	app.Shot("answered")
//
// Everything waits for a condition (a window title, an element, a line of
// a log, a file), never for a fixed time, so journeys pass on a loaded
// machine. Nothing in the app exists for the tests' sake.
package journey

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/internal/testenv"
)

// Timeout bounds every wait of a journey; the machine may be slow.
// FREEACT_JOURNEY_TIMEOUT (a Go duration) changes it.
var Timeout = func() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("FREEACT_JOURNEY_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return 90 * time.Second
}()

// Options describe the app a journey starts.
type Options struct {
	// Workspace is the folder given on the command line (freeact PATH);
	// "" starts without one.
	Workspace string
	// Scenario is a modeltest scenario file for the fake model; "" starts
	// no model (the app's Gemini client then points nowhere).
	Scenario string
	// NoAPIKey leaves GEMINI_API_KEY unset (the fake model still serves).
	NoAPIKey bool
	// Home is a HOME (with its XDG folders) to reuse from an earlier
	// start; "" makes a new one.
	Home string
	// Width and Height of the window; 0 keeps the app's own size.
	Width, Height int
	// Env adds to (or overrides) the app's environment.
	Env map[string]string
}

// App is a running app under test.
type App struct {
	t testing.TB
	// Home is the app's HOME; XDG folders are below it.
	Home string
	// Model is the fake model, nil without a scenario.
	Model *Model

	cmd    *exec.Cmd
	out    *lockedBuffer
	win    string // X window id
	eyes   *eyes
	shots  string
	step   int
	exited chan struct{}
}

// Start starts the production binary (build/bin/freeact, or
// $FREEACT_BIN) on the display of $DISPLAY and waits for its window. The
// app, the model and the helpers stop when the test ends.
func Start(t testing.TB, o Options) *App {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no X display: run under xvfb-run (make test-journey)")
	}
	for _, tool := range []string{"xdotool", "import", "/usr/bin/python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Missing(t, tool+" is not installed: run scripts/system-deps.sh test")
		}
	}
	root := testenv.RepoRoot(t)
	bin := envOr("FREEACT_BIN", filepath.Join(root, "build", "bin", "freeact"))
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no production binary at %s: run make build (or set FREEACT_BIN)", bin)
	}
	a := &App{t: t, Home: o.Home, out: &lockedBuffer{}, exited: make(chan struct{})}
	if a.Home == "" {
		a.Home = t.TempDir()
		// The test Python is the app's own environment, so a workspace
		// without "python" in agent.json needs no provisioning.
		appEnv := filepath.Join(a.Home, ".local", "share", "freeact", "python")
		if err := os.MkdirAll(appEnv, 0o755); err != nil {
			t.Fatal(err)
		}
		venv := filepath.Dir(filepath.Dir(testenv.Python(t)))
		if err := os.Symlink(venv, filepath.Join(appEnv, "venv")); err != nil {
			t.Fatal(err)
		}
	}
	a.shots = filepath.Join(root, "test-output", "journey", safeName(t.Name()))
	if o.Home == "" {
		// A new journey starts with no screenshots; a restart of the app
		// in the same journey (Home reused) numbers on.
		if err := os.RemoveAll(a.shots); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(a.shots, 0o755); err != nil {
		t.Fatal(err)
	}
	if old, err := filepath.Glob(filepath.Join(a.shots, "*.png")); err == nil {
		a.step = len(old)
	}
	env := []string{
		"HOME=" + a.Home,
		"XDG_CONFIG_HOME=" + filepath.Join(a.Home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(a.Home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(a.Home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(a.Home, ".local", "state"),
		"GOOGLE_API_KEY=",
		"GEMINI_API_KEY=",
	}
	if o.Scenario != "" {
		a.Model = startModel(t, envOr("FREEACT_FAKEMODEL_BIN", filepath.Join(root, "build", "bin", "fakemodel")), o.Scenario)
		env = append(env, "GOOGLE_GEMINI_BASE_URL="+a.Model.URL)
		if !o.NoAPIKey {
			env = append(env, "GEMINI_API_KEY=journey-key")
		}
	}
	for k, v := range o.Env {
		env = append(env, k+"="+v)
	}
	var args []string
	if o.Workspace != "" {
		args = append(args, o.Workspace)
	}
	a.cmd = exec.Command(bin, args...)
	a.cmd.Env = withEnv(os.Environ(), env)
	a.cmd.Stdout, a.cmd.Stderr = a.out, a.out
	// A process group of its own: Close stops the app and all it started.
	a.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := a.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() {
		_ = a.cmd.Wait()
		close(a.exited)
	}()
	t.Cleanup(a.close)
	a.eyes = startEyes(t, filepath.Join(root, "journey", "atspi.py"))
	a.win = a.waitWindow()
	if o.Width > 0 && o.Height > 0 {
		a.xdotool("windowsize", "--sync", a.win, strconv.Itoa(o.Width), strconv.Itoa(o.Height))
	}
	return a
}

// Stop closes the app (as the window manager's close would end it) and
// waits until its processes are gone; Start again with the same Home to
// reopen it.
func (a *App) Stop() {
	a.t.Helper()
	a.close()
}

func (a *App) close() {
	select {
	case <-a.exited:
		return
	default:
	}
	if a.cmd.Process != nil {
		_ = syscall.Kill(-a.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-a.exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-a.cmd.Process.Pid, syscall.SIGKILL)
			<-a.exited
		}
	}
	if a.t.Failed() {
		a.t.Logf("app output:\n%s", a.out.String())
	}
}

// Log returns what the app printed so far.
func (a *App) Log() string { return a.out.String() }

// waitWindow waits for the app's window and returns its X id.
func (a *App) waitWindow() string {
	a.t.Helper()
	var id string
	a.until("the app's window", func() bool {
		out, err := exec.Command("xdotool", "search", "--onlyvisible", "--pid", strconv.Itoa(a.cmd.Process.Pid)).Output()
		if err != nil {
			return false
		}
		for _, w := range strings.Fields(string(out)) {
			name, _ := exec.Command("xdotool", "getwindowname", w).Output()
			if strings.Contains(string(name), "freeact") {
				id = w
				return true
			}
		}
		return false
	})
	// The accessible tree comes up with the page.
	a.WaitFor(Role("document web", ""))
	return id
}

// Title returns the window's title.
func (a *App) Title() string {
	out, _ := exec.Command("xdotool", "getwindowname", a.win).Output()
	return strings.TrimSpace(string(out))
}

// WaitTitle waits until the window's title is title.
func (a *App) WaitTitle(title string) {
	a.t.Helper()
	a.until(fmt.Sprintf("the window title %q (it is %q)", title, a.Title()), func() bool { return a.Title() == title })
}

// until polls cond until it holds; the test fails after Timeout.
func (a *App) until(what string, cond func() bool) {
	a.t.Helper()
	deadline := time.Now().Add(Timeout)
	for !cond() {
		select {
		case <-a.exited:
			a.t.Fatalf("the app exited while waiting for %s; output:\n%s", what, a.out.String())
		default:
		}
		if time.Now().After(deadline) {
			path := a.Shot("timeout")
			a.t.Fatalf("no %s within %v (screenshot %s); the window shows:\n%s", what, Timeout, path, a.dump())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Query selects elements of the window by accessible role, name and text;
// empty fields match anything. Name and Text match substrings unless Exact.
type Query struct {
	Role  string
	Name  string
	Text  string
	Exact bool
}

func (q Query) String() string {
	var parts []string
	if q.Role != "" {
		parts = append(parts, q.Role)
	}
	if q.Name != "" {
		parts = append(parts, fmt.Sprintf("named %q", q.Name))
	}
	if q.Text != "" {
		parts = append(parts, fmt.Sprintf("with text %q", q.Text))
	}
	return strings.Join(parts, " ")
}

// Button is a push button whose name contains name.
func Button(name string) Query { return Query{Role: "push button", Name: name} }

// Field is a text entry whose name contains name.
func Field(name string) Query { return Query{Role: "entry", Name: name} }

// Text is any element whose text contains s.
func Text(s string) Query { return Query{Text: s} }

// Role is an element of role whose name contains name.
func Role(role, name string) Query { return Query{Role: role, Name: name} }

// Node is an element as the accessibility bus shows it.
type Node struct {
	Role string `json:"role"`
	Name string `json:"name"`
	Text string `json:"text"`
	// Description is the accessible description (aria-describedby).
	Description string `json:"description"`
	X           int    `json:"x"`
	Y           int    `json:"y"`
	W           int    `json:"w"`
	H           int    `json:"h"`
	Focused     bool   `json:"focused"`
	// Enabled is false for a disabled control.
	Enabled bool `json:"enabled"`
}

// Center is the point a click on the node goes to.
func (n Node) Center() (int, int) { return n.X + n.W/2, n.Y + n.H/2 }

func (q Query) request(all bool) map[string]any {
	r := map[string]any{"op": "find", "all": all, "exact": q.Exact}
	if q.Role != "" {
		r["role"] = q.Role
	}
	if q.Name != "" || (q.Exact && q.Role != "") {
		r["name"] = q.Name
	}
	if q.Text != "" {
		r["text"] = q.Text
	}
	return r
}

// FindAll returns the elements q selects now.
func (a *App) FindAll(q Query) []Node {
	a.t.Helper()
	var resp struct {
		Nodes []Node `json:"nodes"`
	}
	a.eyes.ask(a.t, q.request(true), &resp)
	return resp.Nodes
}

// Find returns the first element q selects now.
func (a *App) Find(q Query) (Node, bool) {
	a.t.Helper()
	var resp struct {
		Nodes []Node `json:"nodes"`
	}
	a.eyes.ask(a.t, q.request(false), &resp)
	if len(resp.Nodes) == 0 {
		return Node{}, false
	}
	return resp.Nodes[0], true
}

// WaitFor waits until q selects an element and returns it.
func (a *App) WaitFor(q Query) Node {
	a.t.Helper()
	var n Node
	a.until(q.String(), func() bool {
		var ok bool
		n, ok = a.Find(q)
		return ok
	})
	return n
}

// WaitEnabled waits until the element q selects is enabled (a button
// that can be pressed) and returns it.
func (a *App) WaitEnabled(q Query) Node {
	a.t.Helper()
	var n Node
	a.until(q.String()+" enabled", func() bool {
		var ok bool
		n, ok = a.Find(q)
		return ok && n.Enabled
	})
	return n
}

// WaitGone waits until q selects nothing.
func (a *App) WaitGone(q Query) {
	a.t.Helper()
	a.until("no "+q.String(), func() bool {
		_, ok := a.Find(q)
		return !ok
	})
}

// Click waits for the element and clicks its centre with mouse button 1.
func (a *App) Click(q Query) Node {
	a.t.Helper()
	return a.clickWith(q, "click", "1")
}

// ClickWith clicks the element while holding a modifier key (ctrl,
// shift), as in a multiple selection.
func (a *App) ClickWith(modifier string, q Query) Node {
	a.t.Helper()
	return a.clickWith(q, "keydown", modifier, "click", "1", "keyup", modifier)
}

// RightClick opens the element's context menu.
func (a *App) RightClick(q Query) Node {
	a.t.Helper()
	return a.clickWith(q, "click", "3")
}

// ClickAt clicks the centre of a node found before (one of FindAll's).
func (a *App) ClickAt(n Node) {
	a.t.Helper()
	x, y := n.Center()
	a.moveTo(x, y)
	a.xdotool("click", "1")
}

// moveTo moves the pointer to x, y on the screen and waits until it is
// there. xdotool's mousemove --sync waits for the pointer to leave where
// it was: asked to move it over a window to where it already is, it
// waits about 15 s before it gives up, so that move is left out.
func (a *App) moveTo(x, y int) {
	a.t.Helper()
	if out, err := exec.Command("xdotool", "getmouselocation", "--shell").Output(); err == nil {
		px, okx := shellField(string(out), "X")
		py, oky := shellField(string(out), "Y")
		if okx && oky && px == x && py == y {
			return
		}
	}
	a.xdotool("mousemove", "--sync", strconv.Itoa(x), strconv.Itoa(y))
}

// clickWith waits for the element, moves the pointer to its centre and
// does what the xdotool words say there.
func (a *App) clickWith(q Query, words ...string) Node {
	a.t.Helper()
	n := a.WaitFor(q)
	a.moveTo(n.Center())
	a.xdotool(words...)
	return n
}

// Type types text into the focused element, as keystrokes.
func (a *App) Type(text string) {
	a.t.Helper()
	a.xdotool("type", "--delay", "15", text)
}

// Key presses keys (xdotool names: Return, Escape, ctrl+a, ...).
func (a *App) Key(keys ...string) {
	a.t.Helper()
	a.xdotool(append([]string{"key", "--delay", "30"}, keys...)...)
}

// Focused returns the element that has the keyboard focus: the deepest
// focused one (the window's widgets around the page count as focused too).
func (a *App) Focused() (Node, bool) {
	a.t.Helper()
	var found Node
	ok := false
	for _, n := range a.FindAll(Query{}) {
		if n.Focused {
			found, ok = n, true
		}
	}
	return found, ok
}

// FocusWindow gives the window the keyboard focus, as a window manager
// does for a window that opens (Xvfb has none, and X sends keys to the
// window under the pointer otherwise). No pointer moves.
func (a *App) FocusWindow() {
	a.t.Helper()
	a.xdotool("windowfocus", "--sync", a.win)
}

// TabTo presses Tab until the element q selects has the keyboard focus,
// as a keyboard user moves through a form; at most 40 presses.
func (a *App) TabTo(q Query) Node {
	a.t.Helper()
	for range 40 {
		if n, ok := a.Focused(); ok && q.matches(n) {
			return n
		}
		a.Key("Tab")
	}
	n, _ := a.Focused()
	path := a.Shot("tab-to")
	a.t.Fatalf("40 Tab presses did not reach %s; the focus is on %s %q (screenshot %s)", q, n.Role, n.Name, path)
	return Node{}
}

// WaitFocus waits until the element q selects has the keyboard focus.
func (a *App) WaitFocus(q Query) {
	a.t.Helper()
	a.Wait("the focus on "+q.String(), func() bool {
		n, ok := a.Focused()
		return ok && q.matches(n)
	})
}

// matches says whether q selects n (as atspi.py's find does).
func (q Query) matches(n Node) bool {
	eq := func(got, want string) bool {
		if q.Exact {
			return got == want
		}
		return strings.Contains(got, want)
	}
	return (q.Role == "" || n.Role == q.Role) && (q.Name == "" || eq(n.Name, q.Name)) && (q.Text == "" || strings.Contains(n.Text, q.Text))
}

// ScrollUp scrolls the conversation up by pages from the element (plain
// text in it): a click there, then Page Up, as a keyboard user scrolls.
func (a *App) ScrollUp(q Query, pages int) {
	a.t.Helper()
	a.Click(q)
	for range pages {
		a.Key("Page_Up")
	}
}

// Hover moves the pointer onto the element's centre (controls that show
// on hover appear).
func (a *App) Hover(q Query) Node {
	a.t.Helper()
	n := a.WaitFor(q)
	a.moveTo(n.Center())
	return n
}

// Wheel turns the mouse wheel over the element: notches > 0 away from
// the user (up, X button 4), < 0 towards (down, button 5), as fast as the
// wheel sends them.
func (a *App) Wheel(q Query, notches int) {
	a.t.Helper()
	x, y := a.WaitFor(q).Center()
	a.WheelAt(x, y, notches)
}

// WheelAt turns the mouse wheel with the pointer at x, y (on the screen)
// as Wheel does.
func (a *App) WheelAt(x, y, notches int) {
	a.t.Helper()
	a.moveTo(x, y)
	button := "4"
	if notches < 0 {
		button, notches = "5", -notches
	}
	a.xdotool("click", "--repeat", strconv.Itoa(notches), "--delay", "15", button)
}

// ScrollUpToSee scrolls the conversation up from the element from (plain
// text in it: a click there, then the Up key, a line at a time, as a
// keyboard user scrolls) until the nth element q selects (0 the first) is
// wholly inside the conversation, and returns it. Only an element on
// screen can be clicked where it is.
func (a *App) ScrollUpToSee(from, q Query, nth int) Node {
	a.t.Helper()
	conv := a.WaitFor(Role("landmark", "Conversation"))
	a.Click(from)
	var n Node
	a.until(fmt.Sprintf("%s number %d in view", q, nth+1), func() bool {
		all := a.FindAll(q)
		if len(all) <= nth {
			return false
		}
		n = all[nth]
		if n.Y >= conv.Y && n.Y+n.H <= conv.Y+conv.H {
			return true
		}
		a.Key("Up")
		return false
	})
	return n
}

func (a *App) xdotool(args ...string) {
	a.t.Helper()
	if out, err := exec.Command("xdotool", args...).CombinedOutput(); err != nil {
		a.t.Fatalf("xdotool %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// Shot saves a screenshot of the window (and of the app's dialogs over
// it) as test-output/journey/<test>/NN-name.png and returns its path.
func (a *App) Shot(name string) string {
	a.t.Helper()
	a.step++
	path := filepath.Join(a.shots, fmt.Sprintf("%02d-%s.png", a.step, safeName(name)))
	x0, y0, x1, y1 := a.bounds()
	crop := fmt.Sprintf("%dx%d+%d+%d", x1-x0, y1-y0, x0, y0)
	if out, err := exec.Command("import", "-window", "root", "-crop", crop, "+repage", path).CombinedOutput(); err != nil {
		a.t.Logf("screenshot %s: %v: %s", path, err, out)
	}
	return path
}

// bounds is the box around the app's visible windows.
func (a *App) bounds() (x0, y0, x1, y1 int) {
	ids := []string{a.win}
	if out, err := exec.Command("xdotool", "search", "--onlyvisible", "--pid", strconv.Itoa(a.cmd.Process.Pid)).Output(); err == nil {
		ids = append(ids, strings.Fields(string(out))...)
	}
	first := true
	for _, id := range ids {
		geo, err := exec.Command("xdotool", "getwindowgeometry", "--shell", id).Output()
		if err != nil {
			continue
		}
		x, y := shellInt(string(geo), "X"), shellInt(string(geo), "Y")
		w, h := shellInt(string(geo), "WIDTH"), shellInt(string(geo), "HEIGHT")
		if w < 2 || h < 2 {
			continue
		}
		if first || x < x0 {
			x0 = x
		}
		if first || y < y0 {
			y0 = y
		}
		if first || x+w > x1 {
			x1 = x + w
		}
		if first || y+h > y1 {
			y1 = y + h
		}
		first = false
	}
	return max(x0, 0), max(y0, 0), x1, y1
}

// dump lists what the window shows, for failure messages.
func (a *App) dump() string {
	var resp struct {
		Nodes []Node `json:"nodes"`
	}
	if err := a.eyes.request(map[string]any{"op": "dump"}, &resp); err != nil {
		return "(the accessibility tree could not be read: " + err.Error() + ")"
	}
	var b strings.Builder
	for _, n := range resp.Nodes {
		if n.W <= 0 || n.H <= 0 {
			continue
		}
		fmt.Fprintf(&b, "  %s %q", n.Role, n.Name)
		if n.Text != "" && n.Text != n.Name {
			t := n.Text
			if len(t) > 80 {
				t = t[:80] + "…"
			}
			fmt.Fprintf(&b, " text %q", t)
		}
		fmt.Fprintf(&b, " @%d,%d %dx%d\n", n.X, n.Y, n.W, n.H)
	}
	return b.String()
}

// Clipboard is what the clipboard holds.
type Clipboard struct {
	Text  string `json:"text"`
	Image *struct {
		W int `json:"w"`
		H int `json:"h"`
	} `json:"image"`
}

// Clipboard reads the clipboard (through GTK, as another app would paste).
func (a *App) Clipboard() Clipboard {
	a.t.Helper()
	var c Clipboard
	a.eyes.ask(a.t, map[string]any{"op": "clipboard"}, &c)
	return c
}

// DragFiles drags files from a GTK drag source (as a file manager would
// offer them, text/uri-list) onto the element q selects, with real
// pointer events: press on the source, move onto the target until the
// window shows its drop zone (dropZone), release.
func (a *App) DragFiles(onto, dropZone Query, paths ...string) {
	a.t.Helper()
	a.DragFilesHolding(onto, dropZone, nil, paths...)
}

// DragFilesHolding drags as DragFiles does, and calls held (when not nil)
// once the drop zone shows, with the button still held and the pointer
// resting over the target, before it releases.
func (a *App) DragFilesHolding(onto, dropZone Query, held func(), paths ...string) {
	a.t.Helper()
	root := testenv.RepoRoot(a.t)
	cmd := exec.Command("/usr/bin/python3", append([]string{filepath.Join(root, "journey", "dragsource.py"), "0", "0"}, paths...)...)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		a.t.Fatalf("start the drag source: %v", err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	a.until("the drag source's window", func() bool { return strings.Contains(out.String(), "ready") })
	var src string
	a.until("the drag source's window id", func() bool {
		b, err := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^freeact-journey-drag-source$").Output()
		src = strings.TrimSpace(string(b))
		return err == nil && src != ""
	})
	geo, _ := exec.Command("xdotool", "getwindowgeometry", "--shell", strings.Fields(src)[0]).Output()
	sx, sy := shellInt(string(geo), "X")+40, shellInt(string(geo), "Y")+30
	target := a.WaitFor(onto)
	tx, ty := target.Center()
	a.moveTo(sx, sy)
	a.xdotool("mousedown", "1")
	// GTK starts a drag after the pointer moved a few pixels with the
	// button down; then move over in steps, as a hand does.
	const steps = 12
	for i := 1; i <= steps; i++ {
		x := sx + (tx-sx)*i/steps
		y := sy + (ty-sy)*i/steps
		a.moveTo(x, y)
	}
	// Nudge the pointer over the target until the window shows the drop
	// zone: the drag has reached the page.
	nudge := 0
	a.until("the drop zone while dragging", func() bool {
		nudge++
		a.moveTo(tx+nudge%2, ty)
		_, ok := a.Find(dropZone)
		return ok
	})
	a.Shot("drop-zone")
	if held != nil {
		held()
	}
	a.xdotool("mouseup", "1")
	a.until("the end of the drag", func() bool { return strings.Contains(out.String(), "ended") })
	if !strings.Contains(out.String(), "sent") {
		a.t.Fatalf("the app never asked the drag source for the files; drag source said:\n%s", out.String())
	}
}

// shellInt reads NAME=value from xdotool's --shell output (0 when it is
// not there).
func shellInt(s, name string) int {
	n, _ := shellField(s, name)
	return n
}

// shellField reads NAME=value from xdotool's --shell output, and whether
// it is there.
func shellField(s, name string) (int, bool) {
	m := regexp.MustCompile(`(?m)^` + name + `=(-?\d+)`).FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// Send types a prompt into the prompt box and sends it with Enter.
func (a *App) Send(prompt string) {
	a.t.Helper()
	a.Click(Field("Message to the agent"))
	a.Key("ctrl+End")
	a.Type(prompt)
	a.Key("Return")
}

// RunApproved sends prompt, approves the action it asks for by keyboard
// (y) and waits for reply.
func (a *App) RunApproved(prompt, reply string) {
	a.t.Helper()
	a.Send(prompt)
	a.WaitFor(Role("landmark", "Approval request"))
	a.Key("y")
	a.WaitFor(Text(reply))
}

// Model is the fake model server.
type Model struct {
	t   testing.TB
	URL string
	// LogPath is its request log, one JSON object a line.
	LogPath string
	cmd     *exec.Cmd
	stderr  *lockedBuffer
}

// Request is one request the model received (a line of its log).
type Request = modeltest.Logged

func startModel(t testing.TB, bin, scenario string) *Model {
	t.Helper()
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no fake model at %s: run make build/bin/fakemodel", bin)
	}
	m := &Model{t: t, LogPath: filepath.Join(t.TempDir(), "requests.jsonl"), stderr: &lockedBuffer{}}
	m.cmd = exec.Command(bin, "-log", m.LogPath, scenario)
	m.cmd.Stderr = m.stderr
	stdin, err := m.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := m.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.cmd.Start(); err != nil {
		t.Fatalf("start the fake model: %v", err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the fake model did not start: %v\n%s", err, m.stderr.String())
	}
	m.URL = strings.TrimSpace(line)
	t.Cleanup(func() {
		_ = stdin.Close() // it stops when stdin closes
		done := make(chan struct{})
		go func() { _ = m.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = m.cmd.Process.Kill()
			<-done
		}
		if s := m.stderr.String(); s != "" {
			t.Errorf("the fake model reports:\n%s", s)
		}
	})
	return m
}

// Requests returns the requests the model received so far.
func (m *Model) Requests() []Request {
	m.t.Helper()
	data, err := os.ReadFile(m.LogPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		m.t.Fatal(err)
	}
	var out []Request
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var r Request
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			m.t.Fatalf("request log %s: %v", m.LogPath, err)
		}
		out = append(out, r)
	}
	return out
}

// WaitRequests waits until the model received n requests and returns them.
func (m *Model) WaitRequests(n int) []Request {
	m.t.Helper()
	deadline := time.Now().Add(Timeout)
	for {
		reqs := m.Requests()
		if len(reqs) >= n {
			return reqs
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("the model received %d requests within %v, want %d; it reports:\n%s", len(reqs), Timeout, n, m.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// eyes is the AT-SPI helper process.
type eyes struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	err *lockedBuffer
}

func startEyes(t testing.TB, script string) *eyes {
	t.Helper()
	e := &eyes{err: &lockedBuffer{}}
	e.cmd = exec.Command("/usr/bin/python3", script)
	e.cmd.Stderr = e.err
	var err error
	if e.in, err = e.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := e.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	e.out = bufio.NewReaderSize(stdout, 1<<20)
	if err := e.cmd.Start(); err != nil {
		t.Fatalf("start atspi.py: %v", err)
	}
	t.Cleanup(func() {
		_ = e.in.Close()
		_ = e.cmd.Wait()
	})
	var ready struct {
		Ready bool `json:"ready"`
	}
	if err := e.read(&ready); err != nil || !ready.Ready {
		t.Fatalf("atspi.py did not start (%v): %s\nIs python3-gi with gir1.2-atspi-2.0 installed, and a session bus running (dbus-run-session)?", err, e.err.String())
	}
	return e
}

func (e *eyes) read(v any) error {
	line, err := e.out.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("read from atspi.py: %w (%s)", err, e.err.String())
	}
	return json.Unmarshal(line, v)
}

func (e *eyes) request(req map[string]any, v any) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, _ := json.Marshal(req)
	if _, err := e.in.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write to atspi.py: %w", err)
	}
	var raw json.RawMessage
	if err := e.read(&raw); err != nil {
		return err
	}
	var failed struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(raw, &failed) == nil && failed.Error != "" {
		return errors.New(failed.Error)
	}
	return json.Unmarshal(raw, v)
}

func (e *eyes) ask(t testing.TB, req map[string]any, v any) {
	t.Helper()
	if err := e.request(req, v); err != nil {
		t.Fatalf("accessibility query %v: %v", req, err)
	}
}

// lockedBuffer collects a process's output.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// withEnv returns base with the entries of extra set (replacing any).
func withEnv(base, extra []string) []string {
	keys := map[string]bool{}
	for _, kv := range extra {
		k, _, _ := strings.Cut(kv, "=")
		keys[k] = true
	}
	var out []string
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if !keys[k] {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}

var unsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func safeName(s string) string { return strings.Trim(unsafe.ReplaceAllString(s, "-"), "-") }

// Wait waits for cond (such as a file on disk) with the journey's timeout.
func (a *App) Wait(what string, cond func() bool) {
	a.t.Helper()
	a.until(what, cond)
}

// Workspace makes a workspace folder whose kernel runs the test Python
// (.cache/python/venv, see testenv.Python), with opts added to its
// agent.json.
func Workspace(t testing.TB, opts map[string]any) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "project")
	if err := os.MkdirAll(filepath.Join(dir, ".freeact"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{"python": testenv.Python(t), "enable_subagents": false}
	for k, v := range opts {
		cfg[k] = v
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, ".freeact", "agent.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// PNG writes a w×h PNG image of one colour and returns its path.
func PNG(t testing.TB, path string, w, h int, c color.RGBA) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	return path
}

// CopyImage puts the image file on the clipboard, as an image viewer's
// Copy does (the helper process owns the clipboard until the test ends).
func (a *App) CopyImage(path string) {
	a.t.Helper()
	var size struct{ W, H int }
	a.eyes.ask(a.t, map[string]any{"op": "copy_image", "path": path}, &size)
}
