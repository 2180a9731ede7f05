package app

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"testing/fstest"
)

func TestMain_commands(t *testing.T) {
	b := Build{Version: "1.2.3", Assets: fstest.MapFS{}}
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout []string
		wantStderr []string
	}{
		{"help lists every command", []string{"--help"}, 0, []string{"init", "run", "version", "open the desktop app", "PATH"}, nil},
		{"help word", []string{"help"}, 0, []string{"Commands:"}, nil},
		{"version", []string{"version"}, 0, []string{"freeact 1.2.3 (go"}, nil},
		{"version flag", []string{"--version"}, 0, []string{"freeact 1.2.3"}, nil},
		{"version takes no args", []string{"version", "extra"}, 2, nil, []string{"version takes no arguments"}},
		{"unknown command or folder", []string{"frobnicate"}, 2, nil, []string{`"frobnicate" is neither a command nor a folder`, "freeact --help"}},
		{"unknown command with arguments", []string{"frobnicate", "x"}, 2, nil, []string{`unknown command "frobnicate"`, "freeact --help"}},
		{"a file as the workspace", []string{"cli_test.go"}, 2, nil, []string{"cli_test.go is a file: give the folder"}},
		{"unknown flag of a command", []string{"version", "--nope"}, 2, nil, []string{"flag provided but not defined: -nope"}},
		{"init takes no arguments", []string{"init", "x"}, 2, nil, []string{"init takes no arguments"}},
		{"run takes no arguments", []string{"run", "x"}, 2, nil, []string{"run takes no arguments"}},
		{"bad log level", []string{"run", "--log-level", "loud"}, 2, nil, []string{`--log-level "loud"`}},
		{"run in a missing workspace", []string{"run", "--workspace", "/nonexistent/ws"}, 1, nil, []string{"/nonexistent/ws is not a folder"}},
		{"command help", []string{"run", "--help"}, 0, nil, []string{"Usage of run"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(context.Background(), tt.args, b, Streams{In: strings.NewReader(""), Out: &stdout, Err: &stderr})
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d (stdout %q, stderr %q)", code, tt.wantCode, stdout.String(), stderr.String())
			}
			for _, s := range tt.wantStdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout %q does not contain %q", stdout.String(), s)
				}
			}
			for _, s := range tt.wantStderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr %q does not contain %q", stderr.String(), s)
				}
			}
		})
	}
}

func TestDesktopArgsOnlyInDevBuilds(t *testing.T) {
	// In a production build a flag is not a request for the window: it is a
	// usage error, so a typo never silently opens the desktop app.
	if devBuild {
		t.Skip("dev build")
	}
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"-devserver", "127.0.0.1:1"}, Build{}, Streams{Out: &stdout, Err: &stderr})
	if code != 2 || !strings.Contains(stderr.String(), `unknown command "-devserver"`) {
		t.Fatalf("code %d, stderr %q", code, stderr.String())
	}
}

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
	d := NewDesktop(Build{Version: "0.3.0"})
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
