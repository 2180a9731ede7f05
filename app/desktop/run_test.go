package desktop

import (
	"strings"
	"testing"

	"github.com/freeact/desktop/app/adapter"
)

func TestCheckDisplay(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if err := checkDisplay(env(map[string]string{"DISPLAY": ":0"})); err != nil {
		t.Errorf("X11 display: %v", err)
	}
	if err := checkDisplay(env(map[string]string{"WAYLAND_DISPLAY": "wayland-0"})); err != nil {
		t.Errorf("Wayland display: %v", err)
	}
	err := checkDisplay(env(nil))
	if err == nil {
		t.Fatal("no display: want an error")
	}
	for _, s := range []string{"DISPLAY", "xvfb-run -a", "freeact run"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
}

func TestDesktopBindings(t *testing.T) {
	d := NewDesktop(adapter.Build{Version: "0.3.0"})
	if v := d.Version(); v.Version != "0.3.0" || !strings.HasPrefix(v.GoVersion, "go") || v.Platform == "" {
		t.Errorf("Version() = %+v", v)
	}
	if w := d.Workspace(); w.Path != "" {
		t.Errorf("Workspace() = %+v, want none open", w)
	}
	if err := d.Send("", nil); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("Send(\"\") = %v, want an empty-prompt error", err)
	}
	if err := d.Send("hi", nil); err == nil || !strings.Contains(err.Error(), "no workspace") {
		t.Errorf("Send(\"hi\") = %v, want an error while no workspace is open", err)
	}
}
