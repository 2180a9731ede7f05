package event

import (
	"testing"

	"github.com/freeact/desktop/agent/permission"
)

// TestScriptPermission: a rule can allow a script only for plain bash or sh;
// any other program, or arguments to it, make the script opaque.
func TestScriptPermission(t *testing.T) {
	for _, tt := range []struct {
		interpreter string
		opaque      bool
	}{
		{"bash", false}, {"/usr/bin/bash", false}, {"sh", false}, {"/bin/sh", false},
		{"/usr/bin/perl", true}, {"python3", true}, {"bash -c 'rm -rf x'", true}, {"bash -e", true},
		{"/opt/my bash", true}, {"/usr/bin/zsh", true},
	} {
		c := ShellAction{ToolName: permission.ShellMagicTool, Command: "ls\n", Interpreter: tt.interpreter}
		if got := c.Permission().Opaque; got != tt.opaque {
			t.Errorf("interpreter %q: opaque %v, want %v", tt.interpreter, got, tt.opaque)
		}
		if want := "#!" + tt.interpreter + "\nls\n"; Display(c) != want {
			t.Errorf("display %q, want %q", Display(c), want)
		}
	}
	if (ShellAction{ToolName: permission.ShellTool, Command: "ls"}).Permission().Opaque {
		t.Error("a plain ! command is opaque")
	}
}
