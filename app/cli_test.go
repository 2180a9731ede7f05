package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/app/desktop"
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
	if desktop.DevBuild {
		t.Skip("dev build")
	}
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"-devserver", "127.0.0.1:1"}, Build{}, Streams{Out: &stdout, Err: &stderr})
	if code != 2 || !strings.Contains(stderr.String(), `unknown command "-devserver"`) {
		t.Fatalf("code %d, stderr %q", code, stderr.String())
	}
}

func TestExpandHomeAndWorkspaceArg(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if got := adapter.ExpandHome("~/projects/x"); got != filepath.Join(home, "projects/x") {
		t.Errorf("adapter.ExpandHome(~/projects/x) = %q", got)
	}
	for _, p := range []string{"~user/x", "a/~/b", "/abs"} {
		if got := adapter.ExpandHome(p); got != p {
			t.Errorf("adapter.ExpandHome(%q) = %q, want it unchanged", p, got)
		}
	}
	if err := os.Mkdir(filepath.Join(home, "ws"), 0o755); err != nil {
		t.Fatal(err)
	}
	if dir, err := workspaceArg("~/ws"); err != nil || dir != filepath.Join(home, "ws") {
		t.Errorf("workspaceArg(~/ws) = %q, %v", dir, err)
	}
	if _, err := workspaceArg("~/missing"); err == nil || !strings.Contains(err.Error(), filepath.Join(home, "missing")) {
		t.Errorf("workspaceArg of a missing folder = %v", err)
	}
}
