package kernel

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/freeact/desktop/internal/testenv"
)

// rawErrors records the raw "error" messages a kernel sends.
type rawErrors struct {
	k  *Kernel
	mu sync.Mutex
	tb [][]string
}

func (r *rawErrors) onMessage(c *conn, m *received) {
	if m.Header.MsgType == "error" {
		r.mu.Lock()
		r.tb = append(r.tb, m.Content.Traceback)
		r.mu.Unlock()
	}
	r.k.onMessage(c, m)
}
func (r *rawErrors) onClosed(c *conn, err error) { r.k.onClosed(c, err) }

var tracebackCells = map[string]string{
	"user_exception": "def inner():\n    raise ValueError('boom')\ndef outer():\n    inner()\nouter()",
	"tool_failed":    "from freeact_runtime import call_tool\ndef fetch():\n    return call_tool('srv', 'fail')\nfetch()",
	"shell_timeout":  "!echo never",
	"syntax_error":   "def f(:\n    pass",
}

// captureTracebacks runs tracebackCells on a real kernel and saves the raw
// tracebacks as inputs of TestCleanTracebackGolden.
func captureTracebacks(t *testing.T, version, py string) {
	s := sharedServer(t, py)
	h := &testHost{
		tool: func(context.Context, string, string, json.RawMessage) (json.RawMessage, error) {
			return nil, os.ErrPermission
		},
		approve: func(ctx context.Context, _ ShellRequest) (bool, error) { <-ctx.Done(); return false, ctx.Err() },
	}
	k := startKernel(t, s, KernelOptions{Host: h, CallbackTimeout: 200e6})
	r := &rawErrors{k: k}
	k.c.setHandler(r)
	for name, code := range tracebackCells {
		r.tb = nil
		run(t, k, code)
		if len(r.tb) != 1 {
			t.Fatalf("%s: %d errors", name, len(r.tb))
		}
		b, _ := json.MarshalIndent(r.tb[0], "", " ")
		os.WriteFile(filepath.Join("testdata", "tracebacks", version+"_"+name+".json"), append(b, '\n'), 0o644)
	}
}

// TestCleanTracebackGolden cleans tracebacks captured from real kernels;
// -update captures them again and rewrites the golden files.
func TestCleanTracebackGolden(t *testing.T) {
	if testenv.Update() {
		os.MkdirAll(filepath.Join("testdata", "tracebacks"), 0o755)
		for version, py := range pythons(t) {
			captureTracebacks(t, version, py)
		}
	}
	inputs, _ := filepath.Glob(filepath.Join("testdata", "tracebacks", "*.json"))
	if len(inputs) == 0 {
		t.Fatal("no testdata/tracebacks/*.json; run go test -run TestCleanTracebackGolden -update")
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			b, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var tb []string
			if err := json.Unmarshal(b, &tb); err != nil {
				t.Fatal(err)
			}
			got := cleanTraceback(tb)
			testenv.Golden(t, strings.TrimSuffix(in, ".json")+".golden", []byte(got))
			if strings.Contains(got, "freeact_kernel") || strings.Contains(got, "\x1b") || strings.Contains(got, "skipping hidden") {
				t.Fatalf("hook frames or ANSI left:\n%s", got)
			}
		})
	}
}

func FuzzCleanTraceback(f *testing.F) {
	f.Add("\x1b[0;31mValueError\x1b[0m: boom", "File \x1b[1m<freeact_kernel>:12\x1b[0m, in call_tool\n  x\n\nCell In[1], line 1")
	f.Add("[... skipping hidden 1 frame]", "\x1b]8;;link\x07text\x1b]8;;\x07")
	f.Add("", "\x1b[")
	f.Fuzz(func(t *testing.T, a, b string) {
		got := cleanTraceback([]string{a, b})
		if utf8.ValidString(a) && utf8.ValidString(b) && !utf8.ValidString(got) {
			t.Fatalf("made invalid UTF-8 from valid input: %q", got)
		}
		if strings.Contains(got, "freeact_kernel") && !strings.Contains(stripANSI(a+b), "freeact_kernel") {
			t.Fatalf("invented text: %q", got)
		}
	})
}

func FuzzVersionAtLeast(f *testing.F) {
	for _, s := range []string{"6.17.0", "7.0.0a1", "1.23", "", "x.y", "3.11.2+local", "10.0.0.0.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if len(versionParts(v)) > 0 && !versionAtLeast(v, v) {
			t.Fatalf("%q is not at least itself", v)
		}
		if !versionAtLeast(v, "") {
			t.Fatalf("%q is not at least the empty version", v)
		}
	})
}

// FuzzCallbackRequest feeds arbitrary prompts to the callback parser: it
// must answer every marker request with valid JSON and never panic.
func FuzzCallbackRequest(f *testing.F) {
	for _, s := range []string{
		`{"kind":"shell","command":"ls","timeout":1}`,
		`{"kind":"tool","server":"s","tool":"t","args":{"a":1}}`,
		`{"kind":"tool","server":"s","tool":"t","args":null}`,
		`{"kind":"nope"}`, `{`, `[]`, `{"kind":"shell","timeout":-5}`,
	} {
		f.Add(s)
	}
	k := &Kernel{opts: KernelOptions{Host: &testHost{}}}
	f.Fuzz(func(t *testing.T, body string) {
		reply, _ := k.answer(context.Background(), context.Background(), marker+body, false)
		var r callbackReply
		if err := json.Unmarshal([]byte(reply), &r); err != nil {
			t.Fatalf("reply %q is not JSON: %v", reply, err)
		}
		if !r.OK && r.Error == nil {
			t.Fatalf("reply %q is neither ok nor an error", reply)
		}
	})
}
