package terminal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/app/adapter"
)

// TestShowScriptApproval: a script cell's approval names the program and
// shows every line of the script.
func TestShowScriptApproval(t *testing.T) {
	var out bytes.Buffer
	term := newTerminal(adapter.Streams{In: strings.NewReader(""), Out: &out, Err: &out}, false, nil)
	lines := []string{"use strict;", "my $x = 1;", "print \"$x\\n\";", "system('ls');", "print \"done\\n\";"}
	script := strings.Join(lines, "\n") + "\n"
	call := agent.ShellAction{ToolName: "shell_magic", Command: script, Interpreter: "perl -w"}
	term.showCall(&agent.ApprovalRequest{ToolCall: call, Display: "#!perl -w\n" + script})
	got := out.String()
	for _, want := range append([]string{"script run by perl -w:", "#!perl -w"}, lines...) {
		if !strings.Contains(got, want) {
			t.Errorf("approval text lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "more lines") {
		t.Errorf("approval text shortens the script:\n%s", got)
	}
}

// The terminal says a hook let a call run, and what it said, not a rule.
func TestTerminalNamesAHooksAllow(t *testing.T) {
	got := approvedBy(&agent.AutoApproved{By: agent.ByHook, Rule: "writes are fine"})
	if !strings.Contains(got, "allowed by a hook: writes are fine") || strings.Contains(got, "permissions.json") {
		t.Fatalf("%q", got)
	}
}
