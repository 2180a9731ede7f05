package hooks

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestMatcherFollowsClaudeCode(t *testing.T) {
	tests := []struct {
		matcher string
		name    string
		want    bool
	}{
		{"", "Bash", true},
		{"*", "mcp__x__y", true},
		{"Bash", "Bash", true},
		{"Bash", "bash", false},
		{"Write", "NotebookWrite", false},
		{"Edit|Write", "Write", true},
		{"Edit|Write", "Read", false},
		{"mcp__memory__.*", "mcp__memory__create", true},
		{"mcp__memory__.*", "mcp__other__create", false},
		{"Notebook.*", "NotebookEdit", true},
	}
	for _, tt := range tests {
		m := Matcher{Matcher: tt.matcher}
		if err := m.compile(); err != nil {
			t.Fatalf("%q: %v", tt.matcher, err)
		}
		if got := m.Matches(tt.name); got != tt.want {
			t.Errorf("matcher %q on %q = %v, want %v", tt.matcher, tt.name, got, tt.want)
		}
	}
}

func TestParseSaysWhatIsWrong(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"unknown event", `{"hooks":{"PreTool":[]}}`, `unknown event "PreTool"`},
		{"prompt type", `{"hooks":{"Stop":[{"hooks":[{"type":"prompt","prompt":"x"}]}]}}`, `"prompt" is not run by freeact`},
		{"no command", `{"hooks":{"Stop":[{"hooks":[{"type":"command"}]}]}}`, `needs "command"`},
		{"bad regex", `{"hooks":{"PreToolUse":[{"matcher":"a(","hooks":[{"type":"command","command":"x"}]}]}}`, `regular expression`},
		{"unknown key", `{"hooks":{"PreToolUse":[{"matchr":"Bash","hooks":[]}]}}`, `matchr`},
		{"not json", `{`, `read hooks`},
		// Claude Code's exec form: run without its args, belay would
		// answer nothing; refused rather than read wrongly.
		{"exec form", `{"hooks":{"PreToolUse":[{"matcher":"mcp__.*","hooks":[{"type":"command","command":"belay","args":["hook","claude-code"]}]}]}}`, `"args" (the exec form) is not supported`},
		{"unknown handler key", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x","comand":"y"}]}]}}`, `unknown key "comand"`},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.json))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to say %q", tt.name, err, tt.want)
		}
	}
	// A Claude Code settings.json with other keys parses.
	s, err := Parse([]byte(`{"permissions":{"allow":["Bash"]},"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true","timeout":5}]}]}}`))
	if err != nil || len(s.Hooks[PreToolUse]) != 1 {
		t.Fatalf("settings.json: %v %+v", err, s)
	}
}

func TestParseOutput(t *testing.T) {
	tests := []struct {
		name   string
		out    string
		ok     bool
		hasErr bool
	}{
		{"empty", "", false, false},
		{"plain text", "Validation passed\n", false, false},
		{"deny", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`, true, false},
		{"cut json", `{"hookSpecificOutput": {`, false, true},
		{"array", `[1]`, false, true},
		{"bad decision", `{"hookSpecificOutput":{"permissionDecision":"maybe"}}`, false, true},
		{"other event", `{"hookSpecificOutput":{"hookEventName":"Stop"}}`, false, true},
		{"updatedInput not object", `{"hookSpecificOutput":{"updatedInput":"rm -rf /"}}`, false, true},
		{"legacy approve", `{"decision":"approve"}`, true, false},
		{"bad top decision", `{"decision":"allow"}`, false, true},
	}
	for _, tt := range tests {
		_, ok, err := ParseOutput(PreToolUse, []byte(tt.out))
		if ok != tt.ok || (err != nil) != tt.hasErr {
			t.Errorf("%s: ok=%v err=%v, want ok=%v err=%v", tt.name, ok, err, tt.ok, tt.hasErr)
		}
	}
}

func FuzzParseOutput(f *testing.F) {
	for _, s := range []string{"", "{}", `{"continue":false,"stopReason":"x"}`, `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"code":"1"}}}`,
		`{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"m"}}}`, "[", "\x00{"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, ev := range []Event{PreToolUse, PermissionRequest, UserPromptSubmit, Stop} {
			out, ok, err := ParseOutput(ev, data)
			if err != nil && ok {
				t.Fatalf("error and answer at once: %v", err)
			}
			if !ok {
				continue
			}
			// Whatever was accepted combines without panicking and yields
			// only the decisions there are.
			o := combine(ev, []Result{{Handler: "h", Answered: true, Output: out}})
			switch o.Decision {
			case "", Allow, Deny, Ask:
			default:
				t.Fatalf("decision %q", o.Decision)
			}
		}
	})
}

func runner(t *testing.T, ev Event, matcher string, hs ...Handler) *Runner {
	t.Helper()
	return &Runner{Dir: t.TempDir(), Sets: []Set{{Source: SourceUser, Settings: Settings{Hooks: map[Event][]Matcher{ev: {{Matcher: matcher, Hooks: hs}}}}}}}
}

func cmd(c string) Handler { return Handler{Type: TypeCommand, Command: c} }

func preBash(command string) Input {
	return Input{HookEventName: PreToolUse, SessionID: "s1", ToolName: ToolBash, ToolInput: json.RawMessage(`{"command":` + strconvQuote(command) + `}`)}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestFailingPreToolUseHookAsksTheUserWithTheReason(t *testing.T) {
	tests := []struct {
		name    string
		h       Handler
		max     int
		because string
	}{
		{"hangs", Handler{Type: TypeCommand, Command: "sleep 30", Timeout: 0.3}, 0, "no answer within"},
		{"hangs with a child holding its output", Handler{Type: TypeCommand, Command: "sleep 30 & sleep 30", Timeout: 0.3}, 0, "no answer within"},
		{"exits 1", cmd("echo broken >&2; exit 1"), 0, "exit status 1: broken"},
		{"prints invalid JSON", cmd(`echo '{"hookSpecificOutput": {"permissionDecision": '`), 0, "invalid JSON"},
		{"floods stdout", cmd(`yes '{"a":1}' | head -c 5000000`), 4096, "printed more than 4096 bytes"},
		{"answers a decision there is not", cmd(`echo '{"hookSpecificOutput":{"permissionDecision":"yes"}}'`), 0, "permissionDecision"},
		{"cannot start", cmd("/nonexistent/hook"), 0, "exit status 127"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runner(t, PreToolUse, "Bash", tt.h)
			r.MaxOutput = tt.max
			start := time.Now()
			o := r.Run(context.Background(), preBash("ls"))
			if o.Decision != Ask {
				t.Fatalf("decision %q, want ask; %+v", o.Decision, o.Results)
			}
			if len(o.Reasons) == 0 || !strings.Contains(o.Reasons[0], tt.because) {
				t.Fatalf("reasons %q, want %q", o.Reasons, tt.because)
			}
			if el := time.Since(start); el > 20*time.Second {
				t.Fatalf("took %s", el)
			}
		})
	}
}

func TestExitTwoDeniesWithStderr(t *testing.T) {
	r := runner(t, PreToolUse, "Bash", cmd(`read x; echo "no rm here" >&2; exit 2`))
	o := r.Run(context.Background(), preBash("rm -rf /"))
	if o.Decision != Deny || len(o.Reasons) != 1 || o.Reasons[0] != "no rm here" {
		t.Fatalf("%+v", o)
	}
}

func TestDenyWinsOverAllowAcrossParallelHandlers(t *testing.T) {
	var running, most atomic.Int32
	slow := func(d string) Func {
		return func(ctx context.Context, in Input) (Output, error) {
			n := running.Add(1)
			defer running.Add(-1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			// Wait until both run, or a second: proves they ran together.
			deadline := time.Now().Add(2 * time.Second)
			for most.Load() < 2 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			return Output{Specific: &SpecificOutput{PermissionDecision: d, PermissionDecisionReason: d + " said so"}}, nil
		}
	}
	r := runner(t, PreToolUse, "*", Handler{Func: slow(Allow), Name: "a"}, Handler{Func: slow(Deny), Name: "d"})
	o := r.Run(context.Background(), preBash("ls"))
	if o.Decision != Deny {
		t.Fatalf("decision %q", o.Decision)
	}
	if most.Load() != 2 {
		t.Fatalf("handlers ran one after the other")
	}
}

func TestInputReachesCommandAsClaudeCodeSendsIt(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "in.json")
	r := runner(t, PreToolUse, "Bash", cmd(`cat > `+out+`; echo "$CLAUDE_PROJECT_DIR" > `+out+`.dir`))
	r.Run(context.Background(), preBash("git status"))
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got["hook_event_name"] != "PreToolUse" || got["tool_name"] != "Bash" || got["session_id"] != "s1" ||
		got["tool_input"].(map[string]any)["command"] != "git status" {
		t.Fatalf("input %s", data)
	}
	for _, k := range []string{"transcript_path", "cwd"} {
		if _, ok := got[k]; !ok {
			t.Errorf("input lacks %s: %s", k, data)
		}
	}
	d, _ := os.ReadFile(out + ".dir")
	if strings.TrimSpace(string(d)) != r.Dir {
		t.Errorf("CLAUDE_PROJECT_DIR %q, want %q", d, r.Dir)
	}
}

func TestHTTPHandlerPostsTheSameJSON(t *testing.T) {
	var got Input
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		_ = json.Unmarshal(body, &got)
		if req.Header.Get("X-Token") != "t" {
			w.WriteHeader(401)
			return
		}
		_, _ = w.Write([]byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"server says no"}}`))
	}))
	defer srv.Close()
	r := runner(t, PreToolUse, "", Handler{Type: TypeHTTP, URL: srv.URL, Headers: map[string]string{"X-Token": "t"}})
	o := r.Run(context.Background(), preBash("curl x"))
	if o.Decision != Deny || o.Reasons[0] != "server says no" || got.ToolName != ToolBash {
		t.Fatalf("%+v, input %+v", o, got)
	}
	r = runner(t, PreToolUse, "", Handler{Type: TypeHTTP, URL: srv.URL})
	if o := r.Run(context.Background(), preBash("curl x")); o.Decision != Ask || !strings.Contains(o.Reasons[0], "HTTP 401") {
		t.Fatalf("a failing server: %+v", o)
	}
}

func TestPromptHooksAddContextOrBlock(t *testing.T) {
	r := runner(t, UserPromptSubmit, "",
		cmd(`echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"branch main"}}'`),
		cmd(`echo plain text context`))
	o := r.Run(context.Background(), Input{HookEventName: UserPromptSubmit, Prompt: "hi"})
	if o.Block || strings.Join(o.Context, "|") != "branch main|plain text context" {
		t.Fatalf("%+v", o)
	}
	r = runner(t, UserPromptSubmit, "", cmd(`echo "no secrets in prompts" >&2; exit 2`))
	o = r.Run(context.Background(), Input{HookEventName: UserPromptSubmit, Prompt: "my key is x"})
	if !o.Block || len(o.Context) != 0 || o.Messages[0] != "no secrets in prompts" {
		t.Fatalf("%+v", o)
	}
}

func TestContinueFalseStops(t *testing.T) {
	r := runner(t, PostToolUse, "", cmd(`echo '{"continue":false,"stopReason":"enough","systemMessage":"note"}'`))
	o := r.Run(context.Background(), Input{HookEventName: PostToolUse, ToolName: "Bash"})
	if !o.Stop || o.StopReason != "enough" || o.Messages[0] != "note" {
		t.Fatalf("%+v", o)
	}
}

func TestUpdatedInputConflictAsks(t *testing.T) {
	upd := func(code string) Func {
		return func(context.Context, Input) (Output, error) {
			return Output{Specific: &SpecificOutput{PermissionDecision: Allow, UpdatedInput: json.RawMessage(`{"code":"` + code + `"}`)}}, nil
		}
	}
	r := runner(t, PreToolUse, "", Handler{Func: upd("1")}, Handler{Func: upd("2")})
	o := r.Run(context.Background(), Input{HookEventName: PreToolUse, ToolName: ToolPython})
	if o.Decision != Ask || !o.Conflict {
		t.Fatalf("%+v", o)
	}
}

func TestIdenticalCommandsRunOnce(t *testing.T) {
	dir := t.TempDir()
	c := cmd(`echo x >> ` + filepath.Join(dir, "log"))
	r := &Runner{Dir: dir, Sets: []Set{
		{Source: SourceUser, Settings: Settings{Hooks: map[Event][]Matcher{Stop: {{Hooks: []Handler{c}}}}}},
		{Source: SourceWorkspace, Settings: Settings{Hooks: map[Event][]Matcher{Stop: {{Hooks: []Handler{c}}}}}},
	}}
	r.Run(context.Background(), Input{HookEventName: Stop})
	data, _ := os.ReadFile(filepath.Join(dir, "log"))
	if string(data) != "x\n" {
		t.Fatalf("ran %q", data)
	}
}

func TestIfNarrowsAHandlerAsAPermissionRuleWould(t *testing.T) {
	tests := []struct {
		cond, tool, input string
		want              bool
	}{
		{"Write(.env*)", ToolWrite, `{"file_path":"/ws/.env.local"}`, true},
		{"Write(.env*)", ToolWrite, `{"file_path":"/ws/a.txt"}`, false},
		{"Write(.env*)", ToolEdit, `{"file_path":"/ws/.env"}`, false},
		{"Bash(git *)", ToolBash, `{"command":"git push --force"}`, true},
		{"Bash(git *)", ToolBash, `{"command":"rm -rf /"}`, false},
		{"Bash(npm run test:*)", ToolBash, `{"command":"npm run test -- x"}`, true},
		{"Edit", ToolEdit, `{"file_path":"/x"}`, true},
		{"Write(/secrets/*)", ToolWrite, `{"file_path":"/ws/secrets/k"}`, true},
	}
	for _, tt := range tests {
		c, err := parseCond(tt.cond)
		if err != nil {
			t.Fatalf("%s: %v", tt.cond, err)
		}
		if got := c.matches(Input{ToolName: tt.tool, ToolInput: json.RawMessage(tt.input)}, "/ws"); got != tt.want {
			t.Errorf("%s on %s %s = %v, want %v", tt.cond, tt.tool, tt.input, got, tt.want)
		}
	}
	for _, bad := range []string{"mcp__x__y(arg)", "Write([)", "Bash(x"} {
		if _, err := parseCond(bad); err == nil {
			t.Errorf("%q was accepted: a condition freeact cannot read must not be ignored", bad)
		}
	}
}
