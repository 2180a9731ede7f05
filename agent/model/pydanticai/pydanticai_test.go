package pydanticai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/internal/testenv"
)

// fixtureMessages decodes the main session of a fixture made by the real
// freeact (scripts/compat/make-fixtures.sh).
func fixtureMessages(t *testing.T, version string) []model.Message {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(testenv.RepoRoot(t), "agent", "testdata", "freeact", version, ".freeact", "sessions", "*", "main.jsonl"))
	if len(files) != 1 {
		t.Fatalf("sessions of the freeact %s fixture: %v", version, files)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []model.Message
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var env struct {
			Message json.RawMessage `json:"message"`
		}
		if err := json.Unmarshal(sc.Bytes(), &env); err != nil {
			t.Fatal(err)
		}
		if !IsMessage(env.Message) {
			t.Fatalf("not recognised as a pydantic-ai message: %.200s", env.Message)
		}
		m, ok, err := Decode(env.Message)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}

// The sessions freeact 0.10.12 and 0.11.2 wrote read as the conversation
// they hold: prompts, thoughts and calls with their Gemini signatures, tool
// results; the system prompt is left out.
func TestDecodeFreeactSessions(t *testing.T) {
	for _, v := range []string{"0.10.12", "0.11.2"} {
		t.Run(v, func(t *testing.T) {
			msgs := fixtureMessages(t, v)
			if len(msgs) != 8 {
				t.Fatalf("%d messages", len(msgs))
			}
			if msgs[0].Role != model.RoleUser || msgs[0].Text() != "What is 6 times 7? Use Python." || len(msgs[0].Parts) != 1 {
				t.Errorf("first message %+v", msgs[0])
			}
			r := msgs[1]
			calls := r.FunctionCalls()
			if r.Role != model.RoleModel || r.Model != "google:gemini-3-flash-preview" || r.Thoughts() != "The user wants 6 times 7; I compute it in the kernel." ||
				r.Text() != "Let me compute that." || len(calls) != 1 || calls[0].Name != "ipybox_execute_ipython_cell" ||
				calls[0].ID != "call-math" || string(calls[0].Args) != `{"code":"x = 6 * 7\nprint(x)"}` {
				t.Errorf("first response %+v", r)
			}
			if string(r.Parts[0].Signature) != "sig:math-thought" || string(r.Parts[2].Signature) != "sig:math-call" || r.Parts[1].Signature != nil {
				t.Errorf("signatures %q %q %q", r.Parts[0].Signature, r.Parts[1].Signature, r.Parts[2].Signature)
			}
			if rs := msgs[2].FunctionResponses(); len(rs) != 1 || rs[0].ID != "call-math" || rs[0].Output != "42" || rs[0].IsError {
				t.Errorf("tool result %+v", rs)
			}
			if msgs[3].Text() != "6 × 7 = 42." || msgs[3].Usage == nil {
				t.Errorf("answer %+v", msgs[3])
			}
			if rs := msgs[6].FunctionResponses(); len(rs) != 1 || rs[0].Name != "filesystem_read_text_file" || rs[0].Output != "Buy milk. Call Ada at noon.\n" {
				t.Errorf("file result %+v", rs)
			}
		})
	}
}

func encodedSamples() []model.Message {
	png := []byte("\x89PNG\r\n\x1a\nnot really")
	return []model.Message{
		model.UserMessage("Describe this picture.", model.Image{MIMEType: "image/png", Data: png}),
		{Role: model.RoleModel, Model: "google:gemini-3-flash-preview", Stop: model.StopEnd,
			Usage: &model.Usage{InputTokens: 120, OutputTokens: 30, ThinkingTokens: 12, CachedTokens: 64},
			Parts: []model.Part{
				{Text: "Looking at it first.", Thought: true, Signature: []byte("gemini-thought-sig")},
				{Text: "Reading the file."},
				{FunctionCall: &model.FunctionCall{ID: "c1", Name: "filesystem_read_media_file", Args: json.RawMessage(`{"path":"a.png"}`)}, Signature: []byte{0, 1, 2, 250}},
				{FunctionCall: &model.FunctionCall{ID: "c2", Name: "ipybox_execute_ipython_cell", Args: json.RawMessage(`{"code":"print(1)"}`)}},
			}},
		model.ToolResults(
			model.FunctionResponse{ID: "c1", Name: "filesystem_read_media_file", Output: "Image a.png (1×1, image/png).", Images: []model.Image{{MIMEType: "image/png", Data: png}}},
			model.FunctionResponse{ID: "c2", Name: "ipybox_execute_ipython_cell", Output: "NameError: x", IsError: true},
		),
		{Role: model.RoleModel, Model: "anthropic:claude-sonnet-4-5", Stop: model.StopMaxTokens, Parts: []model.Part{
			{Text: "Thinking it over.", Thought: true, Signature: []byte("EqQBCkYIARgCIkD")},
			{Text: "It is a tiny PNG."},
		}},
		model.UserText("Thanks."),
	}
}

// Messages this app appends to a session of freeact's are pydantic-ai
// messages that read back as they were. (Tool media come back as a user
// prompt after the tool results, as freeact writes them.)
// testdata/encoded.jsonl holds them for scripts/compat/check-encoded.py,
// which loads them with freeact's own session store.
func TestEncodeRoundTrip(t *testing.T) {
	var golden bytes.Buffer
	for i, m := range encodedSamples() {
		raw, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		golden.WriteString(`{"v": 1, "message": ` + string(raw) + `, "meta": {"ts": "2026-01-01T00:00:00.000000Z"}}` + "\n")
		if !IsMessage(raw) {
			t.Fatalf("%d: encoded message not recognised: %s", i, raw)
		}
		back, ok, err := Decode(raw)
		if err != nil || !ok {
			t.Fatalf("%d: decode %s: %v", i, raw, err)
		}
		want := m
		if rs := m.FunctionResponses(); len(rs) > 0 {
			want = model.Message{Role: model.RoleUser}
			var media []model.Part
			for _, r := range rs {
				if len(r.Images) > 0 {
					media = append(media, model.Part{Text: "Media returned by " + r.Name + ":"})
					for _, im := range r.Images {
						media = append(media, model.Part{Image: &im})
					}
				}
				r.Images = nil
				want.Parts = append(want.Parts, model.Part{FunctionResponse: &r})
			}
			want.Parts = append(want.Parts, media...)
		}
		if !reflect.DeepEqual(back, want) {
			t.Errorf("%d: round trip\n got %+v\nwant %+v\n via %s", i, back, want, raw)
		}
	}
	testenv.Golden(t, filepath.Join("testdata", "encoded.jsonl"), golden.Bytes())
	if t.Failed() {
		t.Log("after go test ./agent/model/pydanticai -update, check the fixtures: scripts/compat/make-fixtures.sh --check")
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"kind": "request", "parts": [{"part_kind": "video-prompt"}]}`, `part_kind "video-prompt"`},
		{`{"kind": "reply", "parts": []}`, `kind "reply"`},
		{`{"kind": "response", "parts": [{"part_kind": "text", "content": 3}]}`, "content is not text"},
		{`{"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "", "args": {}}]}`, "function_call without a name"},
		{`{"kind": "response", "parts": [{"part_kind": "text", "content": "x", "provider_details": {"thought_signature": "%%"}}]}`, "not base64"},
	} {
		_, _, err := Decode(json.RawMessage(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.in, err, tt.want)
		}
	}
	// Only a system prompt: nothing for the history, no error.
	if _, ok, err := Decode(json.RawMessage(`{"kind": "request", "parts": [{"part_kind": "system-prompt", "content": "You are..."}]}`)); ok || err != nil {
		t.Errorf("system prompt only: ok %v, err %v", ok, err)
	}
	if IsMessage(json.RawMessage(`{"role": "user", "parts": [{"text": "hi"}]}`)) {
		t.Error("one of our messages taken for pydantic-ai's")
	}
}
