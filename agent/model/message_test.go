package model

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/freeact/desktop/internal/testenv"
)

// conversation holds every kind of part a session can store.
func conversation() []Message {
	img := Image{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G', 0, 1, 2}}
	return []Message{
		UserMessage("What is in this picture?", img),
		{
			Role:  RoleModel,
			Model: "google:gemini-3-flash-preview",
			Parts: []Part{
				{Text: "Looking at the image.", Thought: true, Signature: []byte{1, 2, 3, 0xff}},
				{Text: "Let me check."},
				{FunctionCall: &FunctionCall{ID: "fa-0011223344556677", Name: "ipybox_execute_ipython_cell", Args: json.RawMessage(`{"code":"print(1)"}`)}, Signature: []byte("opaque-signature")},
				{FunctionCall: &FunctionCall{ID: "call_2", Name: "broken", Args: ArgsJSON([]byte(`{"code": "unterminated`))}},
			},
			Usage: &Usage{InputTokens: 1200, OutputTokens: 35, ThinkingTokens: 410, CachedTokens: 1000},
			Stop:  StopEnd,
		},
		ToolResults(
			FunctionResponse{ID: "fa-0011223344556677", Name: "ipybox_execute_ipython_cell", Output: "1\n", Images: []Image{img}},
			FunctionResponse{ID: "call_2", Name: "broken", Output: "arguments are not a JSON object", IsError: true},
		),
		{Role: RoleModel, Parts: []Part{{Text: "It is a tiny PNG."}}, Stop: StopMaxTokens},
	}
}

func TestMessageJSONGolden(t *testing.T) {
	msgs := conversation()
	var buf bytes.Buffer
	for _, m := range msgs {
		line, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	// Saved sessions hold this form: a change must keep old files readable.
	const golden = "testdata/conversation.golden.jsonl"
	testenv.Golden(t, golden, buf.Bytes())
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	// Load the stored lines back, as a resumed session does.
	for i, line := range bytes.Split(bytes.TrimSpace(want), []byte("\n")) {
		var m Message
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if !reflect.DeepEqual(m, msgs[i]) {
			t.Errorf("line %d round trip:\n got %+v\nwant %+v", i+1, m, msgs[i])
		}
	}
}

func TestMessageAccessors(t *testing.T) {
	msgs := conversation()
	reply := msgs[1]
	if reply.Text() != "Let me check." || reply.Thoughts() != "Looking at the image." {
		t.Errorf("Text %q Thoughts %q", reply.Text(), reply.Thoughts())
	}
	calls := reply.FunctionCalls()
	if len(calls) != 2 || calls[0].Name != "ipybox_execute_ipython_cell" || string(calls[1].Args) != `"{\"code\": \"unterminated"` {
		t.Errorf("calls = %+v", calls)
	}
	if rs := msgs[2].FunctionResponses(); len(rs) != 2 || !rs[1].IsError {
		t.Errorf("responses = %+v", rs)
	}
	if m := UserMessage("", Image{MIMEType: "image/jpeg", Data: []byte{1}}); len(m.Parts) != 1 || m.Parts[0].Image == nil {
		t.Errorf("image-only user message = %+v", m)
	}
}

func TestMessageUnmarshalRejects(t *testing.T) {
	tests := []struct{ name, json, want string }{
		{"unknown field", `{"role":"user","parts":[],"colour":1}`, `unknown key "colour"`},
		{"bad role", `{"role":"assistant","parts":[]}`, `role "assistant"`},
		{"two kinds", `{"role":"model","parts":[{"function_call":{"id":"1","name":"a","args":{}},"image":{"mime_type":"image/png","data":"AA=="}}]}`, "more than one"},
		{"text next to call", `{"role":"model","parts":[{"text":"x","function_call":{"id":"1","name":"a","args":{}}}]}`, "text next to"},
		{"call from user", `{"role":"user","parts":[{"function_call":{"id":"1","name":"a","args":{}}}]}`, "function_call in a user message"},
		{"response from model", `{"role":"model","parts":[{"function_response":{"name":"a","output":""}}]}`, "function_response in a model message"},
		{"call without name", `{"role":"model","parts":[{"function_call":{"id":"1","args":{}}}]}`, "without a name"},
		{"call without args", `{"role":"model","parts":[{"function_call":{"id":"1","name":"a"}}]}`, "args are not JSON"},
		{"image without data", `{"role":"user","parts":[{"image":{"mime_type":"image/png"}}]}`, "needs mime_type and data"},
		{"bad signature", `{"role":"model","parts":[{"text":"x","signature":"%%%"}]}`, "illegal base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m Message
			err := json.Unmarshal([]byte(tt.json), &m)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestArgsJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, `{}`},
		{"  \n", `{}`},
		{`{ "a" : [1, 2] }`, `{"a":[1,2]}`},
		{`{"a":`, `"{\"a\":"`},
		{`not json`, `"not json"`},
	}
	for _, tt := range tests {
		if got := string(ArgsJSON([]byte(tt.in))); got != tt.want {
			t.Errorf("ArgsJSON(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// FuzzMessageJSON checks that whatever decodes also encodes and decodes to
// the same message, so a loaded session can always be saved again.
func FuzzMessageJSON(f *testing.F) {
	for _, m := range conversation() {
		b, _ := json.Marshal(m)
		f.Add(b)
	}
	f.Add([]byte(`{"role":"user","parts":[{"text":""}]}`))
	f.Add([]byte(`{"role":"model","parts":[{"function_call":{"id":"","name":"x","args":[1]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Message
		if json.Unmarshal(data, &m) != nil {
			return
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("decoded %s but cannot encode it: %v", data, err)
		}
		var again Message
		if err := json.Unmarshal(b, &again); err != nil {
			t.Fatalf("re-decode %s: %v", b, err)
		}
		b2, _ := json.Marshal(again)
		if !bytes.Equal(b, b2) {
			t.Fatalf("not stable:\n%s\n%s", b, b2)
		}
	})
}
