package app

import (
	"fmt"
	"strings"
	"testing"
)

// In --json mode with --auto and the sandbox off, a file write the
// rules leave open goes to the judge (the conversation's model, asked
// with the user's prompt and the action only); its allow runs the write
// with an AutoApproved event saying why, its call is a Usage line of its
// own, and /auto off is a CommandOutput.
func TestRunJSONAutoModeJudgeAllows(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, _ := terminalEnv(t, `
turns:
  - reply:
      - text: "ASSISTANT-TEXT: the user wants this"
      - call: {id: w1, name: filesystem_write_text_file, args: {path: notes.txt, content: "new notes\n"}}
  - expect:
      system_contains: "You review one action"
      messages: 1
      last: [{role: user, text: "Write the notes."}]
    reply: [{text: '{"verdict":"allow","reason":"the user asked for the notes"}'}]
    usage: {input: 50, output: 9}
  - reply: [{text: "Wrote them."}]
`)
	r := startJSON(t, bin, env, "--workspace", ws, "--auto")
	r.send("Write the notes.")
	// The judge's call is counted before the call it allowed runs.
	for {
		u := r.next("Usage")
		if u["judge"] == true {
			break
		}
	}
	auto := r.next("AutoApproved")
	if auto["by"] != "judge" || auto["reason"] != "the user asked for the notes" {
		t.Errorf("auto approval %v", auto)
	}
	r.next("Response")
	r.send("/auto off")
	if out := r.next("CommandOutput"); out["command"] != "/auto" || !strings.Contains(fmt.Sprint(out["text"]), "Auto mode is off") {
		t.Errorf("/auto off: %v", out)
	}
	r.wait(0)
	allJSON(t, r)
}
