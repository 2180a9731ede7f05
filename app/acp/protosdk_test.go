package acp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/app/internal/fronttest"
	"github.com/freeact/desktop/internal/testenv"
)

// TestACPBadInputWithTheProtocolSDK: the protocol's own SDK
// (@agentclientprotocol/sdk, scripts/acp-clients/badinput.mjs) is the
// client for the bad-input cases: a malformed message, an unknown method,
// a second session/prompt while one runs, a cancel for a finished turn, a
// permission request never answered, and a client that goes away
// mid-turn. Each gets a JSON-RPC error or a clean stop, and afterwards the
// session file and the kernel agree.
func TestACPBadInputWithTheProtocolSDK(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Missing(t, "no node for the ACP SDK")
	}
	acpx(t) // scripts/acp-clients is installed
	script := filepath.Join(testenv.RepoRoot(t), "scripts", "acp-clients", "badinput.mjs")
	bin := freeactBinary(t)
	ws, environ, marker := env(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "x = 7\nprint('set', flush=True)"}}}]
  - reply: [{text: "Set."}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "x = 99\nprint('ran c2')"}}}]
  - reply: [{call: {id: c3, name: ipybox_execute_ipython_cell, args: {code: "print(x * 6)"}}}]
  - reply: [{text: "It is 42."}]
  - reply: [{call: {id: c4, name: ipybox_execute_ipython_cell, args: {code: "import time\nprint('sleeping', flush=True)\ntime.sleep(600)"}}}]
`)
	run := func(args ...string) map[string]map[string]any {
		t.Helper()
		cmd := exec.Command("node", append([]string{script}, args...)...)
		cmd.Dir, cmd.Env = ws, environ
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		raw, err := cmd.Output()
		if err != nil {
			t.Fatalf("node %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args[:1], " "), err, raw, stderr.String())
		}
		cases := map[string]map[string]any{}
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var c map[string]any
			if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
				t.Fatalf("not a JSON line: %q", sc.Text())
			}
			cases[c["case"].(string)] = c
		}
		t.Logf("node %s:\n%s", args[0], raw)
		return cases
	}
	cases := run("run", bin, ws)
	str := func(c map[string]any, path ...string) string {
		var v any = c
		for _, p := range path {
			m, _ := v.(map[string]any)
			v = m[p]
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	for _, tt := range []struct {
		name, got, want string
	}{
		{"a malformed message gets a parse error", str(cases["malformed"], "error", "code"), "-32700"},
		{"an unknown method gets method not found", str(cases["unknown_method"], "error", "code"), "-32601"},
		{"the unknown method is named", str(cases["unknown_method"], "error"), "session/frobnicate"},
		{"a second prompt while one runs is refused", str(cases["second_prompt"], "error"), "a turn is already running in this session"},
		{"and the first goes on", str(cases["first_prompt"], "stopReason"), `"end_turn"`},
		{"and runs its cell", str(cases["first_prompt"], "c1"), `set\n`},
		{"a cancel for a finished turn does nothing", str(cases["cancel_finished"], "ok"), "true"},
		{"a permission never answered ends with the cancel", str(cases["never_answered"], "stopReason"), `"cancelled"`},
		{"and its call does not run", str(cases["never_answered"], "c2Status"), `"failed"`},
		{"the kernel did not run it either", str(cases["kernel_agrees"], "c3"), `42\n`},
		{"the session goes on", str(cases["kernel_agrees"], "stopReason"), `"end_turn"`},
		{"the client went away mid-turn", str(cases["going_away"], "pid"), ""},
	} {
		if !strings.Contains(tt.got, tt.want) {
			t.Errorf("%s: got %s, want %s", tt.name, tt.got, tt.want)
		}
	}
	// A client gone mid-turn: freeact acp ends the turn, stops the kernel
	// and exits, without anyone telling it to.
	deadline := time.Now().Add(time.Minute)
	for len(fronttest.ProcessesWith(marker)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes left after the client went away: %v", fronttest.ProcessesWith(marker))
		}
		time.Sleep(100 * time.Millisecond) // polling /proc: no event tells of another process's exit
	}
	// The session file agrees: loaded again, c1 and c3 ran, c2 did not,
	// c4 is recorded as stopped when the session ended.
	id := strings.Trim(str(cases["session"], "sessionId"), `"`)
	loaded := run("load", bin, ws, id)["load"]
	for _, tt := range []struct {
		name, got, want string
	}{
		{"c1 ran", str(loaded, "calls", "c1"), `set\n`},
		{"c1 completed", str(loaded, "calls", "c1", "status"), `"completed"`},
		{"c2 is recorded as not run", str(loaded, "calls", "c2", "status"), `"failed"`},
		{"c3 saw x = 7", str(loaded, "calls", "c3", "text"), `42\n`},
		// As the cell's interrupt or as the session's end, whichever the
		// record got first.
		{"c4 is recorded as interrupted", str(loaded, "calls", "c4", "text"), "Interrupted"},
		{"c4 did not complete", str(loaded, "calls", "c4", "status"), `"failed"`},
		{"the answers are kept", str(loaded, "answer"), "It is 42."},
	} {
		if !strings.Contains(tt.got, tt.want) {
			t.Errorf("loaded: %s: got %s, want %s", tt.name, tt.got, tt.want)
		}
	}
	if strings.Contains(str(loaded, "calls", "c2", "text"), `\nran c2`) {
		t.Errorf("the session says c2 ran: %s", str(loaded, "calls", "c2"))
	}
}
