package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/gemini"
	"github.com/freeact/desktop/agent/model/modeltest"
)

var fastRetry = model.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}

var codeTool = model.Tool{
	Name:        "ipybox_execute_ipython_cell",
	Description: "Run Python code in the kernel.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]}`),
}

// newModel makes a Gemini model talking to srv through HTTPOptions.BaseURL.
func newModel(t *testing.T, srv *modeltest.Server) model.Model {
	t.Helper()
	b, err := gemini.New(t.Context(), gemini.Config{
		Model:    "gemini-3-flash-preview",
		Settings: model.DefaultSettings(),
		APIKey:   "test-key",
		BaseURL:  srv.URL(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return model.New(b, fastRetry)
}

// collect drains a stream into its chunks and final error.
func collect(ctx context.Context, m model.Model, req *model.Request) ([]model.Chunk, error) {
	var chunks []model.Chunk
	for c, err := range m.Stream(ctx, req) {
		if err != nil {
			return chunks, err
		}
		chunks = append(chunks, c)
	}
	return chunks, nil
}

func done(t *testing.T, chunks []model.Chunk) model.Message {
	t.Helper()
	if len(chunks) == 0 {
		t.Fatal("no chunks")
	}
	d, ok := chunks[len(chunks)-1].(model.Done)
	if !ok {
		t.Fatalf("last chunk is %T, want model.Done", chunks[len(chunks)-1])
	}
	return d.Message
}

// TestToolRoundtrip plays a two-turn conversation through the real genai
// client, with the base URL taken from GOOGLE_GEMINI_BASE_URL as in
// production, and resumes the second turn from JSON as a session would.
func TestToolRoundtrip(t *testing.T) {
	sc := modeltest.LoadScenario(t, "testdata/tool_roundtrip.yaml")
	srv := modeltest.UseGemini(t, sc)
	b, err := gemini.New(t.Context(), gemini.Config{Model: "gemini-3-flash-preview", Settings: model.DefaultSettings()})
	if err != nil {
		t.Fatal(err)
	}
	m := model.New(b, fastRetry)
	if got := m.Name(); got != "google:gemini-3-flash-preview" {
		t.Errorf("Name() = %q", got)
	}

	png := model.Image{MIMEType: "image/png", Data: []byte("\x89PNG fake")}
	req := &model.Request{
		System:   "You are a code-action agent.",
		Messages: []model.Message{model.UserMessage("What is 2+2?", png)},
		Tools:    []model.Tool{codeTool},
	}
	chunks, err := collect(t.Context(), m, req)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, c := range chunks {
		switch c := c.(type) {
		case model.ThoughtDelta:
			kinds = append(kinds, "thought:"+c.Text)
		case model.TextDelta:
			kinds = append(kinds, "text:"+c.Text)
		case model.FunctionCallChunk:
			kinds = append(kinds, "call:"+c.Call.Name)
		case model.UsageChunk:
			kinds = append(kinds, "usage")
		case model.Done:
			kinds = append(kinds, "done")
		default:
			kinds = append(kinds, "unexpected")
		}
	}
	want := "thought:The user wants a sum.|thought: I will compute it.|text:Let me run that.|call:ipybox_execute_ipython_cell|usage|done"
	if got := strings.Join(kinds, "|"); got != want {
		t.Errorf("chunks:\n got %s\nwant %s", got, want)
	}
	reply := done(t, chunks)
	if reply.Thoughts() != "The user wants a sum. I will compute it." || reply.Text() != "Let me run that." {
		t.Errorf("reply thoughts %q text %q", reply.Thoughts(), reply.Text())
	}
	if reply.Usage == nil || *reply.Usage != (model.Usage{InputTokens: 120, OutputTokens: 25, ThinkingTokens: 40}) {
		t.Errorf("usage = %+v", reply.Usage)
	}
	calls := reply.FunctionCalls()
	if len(calls) != 1 || string(calls[0].Args) != `{"code":"print(2+2)"}` || calls[0].ID == "" {
		t.Fatalf("calls = %+v", calls)
	}
	if sig := string(reply.Parts[len(reply.Parts)-1].Signature); sig != "sig-call-1" {
		t.Errorf("call signature = %q", sig)
	}

	// Save and load the history as a session file would.
	history := []model.Message{req.Messages[0], reply, model.ToolResults(model.FunctionResponse{
		ID: calls[0].ID, Name: calls[0].Name, Output: "4\n", Images: []model.Image{png},
	})}
	data, err := json.Marshal(history)
	if err != nil {
		t.Fatal(err)
	}
	var resumed []model.Message
	if err := json.Unmarshal(data, &resumed); err != nil {
		t.Fatal(err)
	}
	req.Messages = resumed
	chunks, err = collect(t.Context(), m, req)
	if err != nil {
		t.Fatal(err)
	}
	if got := done(t, chunks).Text(); got != "The answer is 4." {
		t.Errorf("second reply = %q", got)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server got %d requests", len(reqs))
	}
	if reqs[0].APIKey != "fake-key" {
		t.Errorf("API key sent = %q, want the one from GEMINI_API_KEY", reqs[0].APIKey)
	}
	if !strings.Contains(string(reqs[0].Tools[0].Parameters), `"required":["code"]`) {
		t.Errorf("tool schema sent = %s", reqs[0].Tools[0].Parameters)
	}
	// The call ID was made up by us, so it must not be sent to Gemini.
	if strings.Contains(string(reqs[1].Body), model.CallIDPrefix) {
		t.Errorf("synthetic call ID leaked into the request: %s", reqs[1].Body)
	}
}

func TestRetryThenSuccess(t *testing.T) {
	srv := modeltest.NewGemini(t, modeltest.LoadScenario(t, "testdata/retry_429.yaml"))
	chunks, err := collect(t.Context(), newModel(t, srv), &model.Request{Messages: []model.Message{model.UserText("hello")}})
	if err != nil {
		t.Fatal(err)
	}
	var retries []model.Retry
	for _, c := range chunks {
		if r, ok := c.(model.Retry); ok {
			retries = append(retries, r)
		}
	}
	if len(retries) != 2 {
		t.Fatalf("got %d retry notices, want 2: %v", len(retries), chunks)
	}
	var apiErr *model.APIError
	if !errors.As(retries[0].Err, &apiErr) || apiErr.StatusCode != 429 || apiErr.Status != "RESOURCE_EXHAUSTED" {
		t.Errorf("first retry error = %v", retries[0].Err)
	}
	if retries[0].Delay != 2*time.Millisecond {
		t.Errorf("first delay = %v, want the server's 2ms", retries[0].Delay)
	}
	if retries[1].Attempt != 2 || !strings.Contains(retries[1].Err.Error(), "503") {
		t.Errorf("second retry = %+v", retries[1])
	}
	if got := done(t, chunks).Text(); got != "Hi there." {
		t.Errorf("reply = %q", got)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("server got %d requests, want 3", n)
	}
}

func TestBadRequestNotRetried(t *testing.T) {
	srv := modeltest.NewGemini(t, modeltest.LoadScenario(t, "testdata/bad_request_400.yaml"))
	chunks, err := collect(t.Context(), newModel(t, srv), &model.Request{Messages: []model.Message{model.UserText("hi")}})
	if err == nil {
		t.Fatal("no error")
	}
	for _, c := range chunks {
		if _, ok := c.(model.Retry); ok {
			t.Error("a 400 was retried")
		}
	}
	msg := err.Error()
	for _, want := range []string{"google:gemini-3-flash-preview", "400", "INVALID_ARGUMENT", "missing a thought_signature"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
}

func TestMalformedStream(t *testing.T) {
	srv := modeltest.NewGemini(t, modeltest.LoadScenario(t, "testdata/malformed.yaml"))
	_, err := collect(t.Context(), newModel(t, srv), &model.Request{Messages: []model.Message{model.UserText("hi")}})
	if err == nil {
		t.Fatal("no error")
	}
	partial, ok := model.PartialMessage(err)
	if !ok || partial.Text() != "Partial answer" {
		t.Errorf("partial = %+v (ok %v), err %v", partial, ok, err)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("a stream that had produced output was retried")
	}
}

func TestConnectionDroppedBeforeOutputIsRetried(t *testing.T) {
	srv := modeltest.NewGemini(t, modeltest.LoadScenario(t, "testdata/cut_before_output.yaml"))
	chunks, err := collect(t.Context(), newModel(t, srv), &model.Request{Messages: []model.Message{model.UserText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := chunks[0].(model.Retry); !ok {
		t.Errorf("first chunk %T, want a retry notice", chunks[0])
	}
	if got := done(t, chunks).Text(); got != "Recovered." {
		t.Errorf("reply = %q", got)
	}
}

func TestCancelMidStream(t *testing.T) {
	srv := modeltest.NewGemini(t, modeltest.LoadScenario(t, "testdata/hang.yaml"))
	// A minute's safety net: a cancel that does not work ends in
	// DeadlineExceeded instead of hanging the test.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var err error
	var text string
	for c, e := range newModel(t, srv).Stream(ctx, &model.Request{Messages: []model.Message{model.UserText("hi")}}) {
		if e != nil {
			err = e
			break
		}
		if d, ok := c.(model.TextDelta); ok {
			text += d.Text
			cancel() // the user presses Stop while text streams
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	partial, ok := model.PartialMessage(err)
	if !ok || partial.Text() != "Part of an answer" || partial.Thoughts() != "Thinking slowly" {
		t.Errorf("partial = %+v", partial)
	}
	if text != "Part of an answer" {
		t.Errorf("streamed text = %q", text)
	}
}

func TestNoAPIKey(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "")
	_, err := gemini.New(t.Context(), gemini.Config{Model: "gemini-3-flash-preview"})
	if err == nil || !strings.Contains(err.Error(), "GEMINI_API_KEY") || !strings.Contains(err.Error(), "GOOGLE_API_KEY") {
		t.Fatalf("err = %v, want one naming GEMINI_API_KEY and GOOGLE_API_KEY", err)
	}
}

func TestRetriesGiveUp(t *testing.T) {
	srv := modeltest.NewGemini(t, modeltest.LoadScenario(t, "testdata/overloaded.yaml"))
	chunks, err := collect(t.Context(), newModel(t, srv), &model.Request{Messages: []model.Message{model.UserText("hi")}})
	if err == nil || !strings.Contains(err.Error(), "503 UNAVAILABLE: The model is overloaded") {
		t.Fatalf("err = %v", err)
	}
	if len(chunks) != fastRetry.MaxAttempts-1 {
		t.Errorf("%d retry notices, want %d", len(chunks), fastRetry.MaxAttempts-1)
	}
	if n := len(srv.Requests()); n != fastRetry.MaxAttempts {
		t.Errorf("%d requests, want %d", n, fastRetry.MaxAttempts)
	}
}

func TestCancelStopsRetrying(t *testing.T) {
	srv := modeltest.NewGemini(t, modeltest.LoadScenario(t, "testdata/overloaded.yaml"))
	b, err := gemini.New(t.Context(), gemini.Config{Model: "gemini-3-flash-preview", APIKey: "k", BaseURL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	m := model.New(b, model.RetryPolicy{BaseDelay: time.Minute, MaxDelay: time.Minute})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	start := time.Now()
	var last error
	for c, err := range m.Stream(ctx, &model.Request{Messages: []model.Message{model.UserText("hi")}}) {
		if _, ok := c.(model.Retry); ok {
			cancel() // Stop pressed while the UI shows "retrying in 40s"
		}
		last = err
	}
	if !errors.Is(last, context.Canceled) {
		t.Fatalf("err = %v", last)
	}
	if d := time.Since(start); d > 30*time.Second { // the backoff is a minute
		t.Errorf("cancel during backoff took %v", d)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests after cancel, want 1", n)
	}
}

// TestOlderModelsAndForeignCalls covers what differs for Gemini 2.x and for
// function calls from another provider: levels become a dynamic budget,
// response images travel as sibling parts, the other provider's signature
// is dropped and the call gets the documented placeholder on Gemini 3.
func TestOlderModelsAndForeignCalls(t *testing.T) {
	history := []model.Message{
		model.UserText("go"),
		{Role: model.RoleModel, Model: "anthropic:claude-sonnet-4-5", Parts: []model.Part{
			{FunctionCall: &model.FunctionCall{ID: "call_x", Name: "f", Args: json.RawMessage(`{}`)}, Signature: []byte("claude-signature")},
			{FunctionCall: &model.FunctionCall{ID: "call_y", Name: "f", Args: json.RawMessage(`{}`)}},
		}},
		model.ToolResults(
			model.FunctionResponse{ID: "call_x", Name: "f", Output: "done", Images: []model.Image{{MIMEType: "image/png", Data: []byte{1}}}},
			model.FunctionResponse{ID: "call_y", Name: "f", Output: "done too"},
		),
		// A Gemini 3 turn with parallel calls: only the first is signed.
		{Role: model.RoleModel, Parts: []model.Part{
			{FunctionCall: &model.FunctionCall{ID: "g1", Name: "f", Args: json.RawMessage(`{}`)}, Signature: []byte("real")},
			{FunctionCall: &model.FunctionCall{ID: "g2", Name: "f", Args: json.RawMessage(`{}`)}},
		}},
		model.ToolResults(model.FunctionResponse{ID: "g1", Name: "f"}, model.FunctionResponse{ID: "g2", Name: "f"}),
	}
	for _, tt := range []struct {
		name                       string
		wantThinking, wantSig      string
		wantNestedImg, wantSibling bool
	}{
		{"gemini-2.5-flash", `"thinkingBudget":-1`, "", false, true},
		{"gemini-3-flash-preview", `"thinkingLevel":"MEDIUM"`, "skip_thought_signature_validator", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := modeltest.ParseScenario([]byte("turns: [{reply: [{text: ok}]}]"))
			if err != nil {
				t.Fatal(err)
			}
			srv := modeltest.NewGemini(t, sc)
			b, err := gemini.New(t.Context(), gemini.Config{Model: tt.name, APIKey: "k", BaseURL: srv.URL(), Settings: model.DefaultSettings()})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := collect(t.Context(), model.New(b, fastRetry), &model.Request{Messages: history}); err != nil {
				t.Fatal(err)
			}
			req := srv.Requests()[0]
			if !strings.Contains(string(req.Body), tt.wantThinking) {
				t.Errorf("body lacks %s: %s", tt.wantThinking, req.Body)
			}
			if sig := string(req.Messages[1].Parts[0].Signature); sig != tt.wantSig {
				t.Errorf("call signature %q, want %q", sig, tt.wantSig)
			}
			if sig := req.Messages[1].Parts[1].Signature; len(sig) != 0 {
				t.Errorf("second parallel call got signature %q", sig)
			}
			if sig := req.Messages[3].Parts[1].Signature; len(sig) != 0 {
				t.Errorf("a turn Gemini signed itself got a placeholder: %q", sig)
			}
			last := req.Messages[2]
			if len(req.Messages) != 5 {
				t.Fatalf("%d messages sent", len(req.Messages))
			}
			if nested := len(last.Parts[0].FunctionResponse.Images) == 1; nested != tt.wantNestedImg {
				t.Errorf("image inside the function response: %v", nested)
			}
			if sibling := len(last.Parts) == 3 && last.Parts[2].Image != nil; sibling != tt.wantSibling {
				t.Errorf("image as a sibling part: %v", sibling)
			}
			if req.Messages[1].Parts[0].FunctionCall.ID != "call_x" {
				t.Errorf("a provider call ID was not sent back")
			}
		})
	}
}

// A Gemini 3 function response carries images inside; a PDF read by a tool
// goes beside it as a part of its own (Gemini reads PDFs, audio and video
// inline, which AcceptsMedia says).
func TestMediaBesideFunctionResponses(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte("turns: [{reply: [{text: ok}]}]"))
	if err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewGemini(t, sc)
	b, err := gemini.New(t.Context(), gemini.Config{Model: "gemini-3-flash-preview", APIKey: "k", BaseURL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	for mime, want := range map[string]bool{"image/png": true, "application/pdf": true, "audio/mpeg": true, "video/mp4": true, "application/zip": false} {
		if got := model.AcceptsMedia(model.New(b, fastRetry), mime); got != want {
			t.Errorf("AcceptsMedia(%s) = %v", mime, got)
		}
	}
	pdf := model.Image{MIMEType: "application/pdf", Data: []byte("%PDF-1.4 tiny")}
	history := []model.Message{
		model.UserText("read it"),
		{Role: model.RoleModel, Parts: []model.Part{{FunctionCall: &model.FunctionCall{ID: "c", Name: "filesystem_read_media_file", Args: json.RawMessage(`{"path":"a.pdf"}`)}, Signature: []byte("s")}}},
		model.ToolResults(model.FunctionResponse{ID: "c", Name: "filesystem_read_media_file", Output: "PDF a.pdf", Images: []model.Image{{MIMEType: "image/png", Data: []byte{1}}, pdf}}),
	}
	if _, err := collect(t.Context(), model.New(b, fastRetry), &model.Request{Messages: history}); err != nil {
		t.Fatal(err)
	}
	last := srv.Requests()[0].Messages[2]
	if len(last.Parts) != 2 || len(last.Parts[0].FunctionResponse.Images) != 1 || last.Parts[1].Image == nil ||
		last.Parts[1].Image.MIMEType != "application/pdf" || string(last.Parts[1].Image.Data) != "%PDF-1.4 tiny" {
		t.Errorf("sent %+v", last.Parts)
	}
}

func TestStalledStream(t *testing.T) {
	srv := modeltest.NewGemini(t, modeltest.LoadScenario(t, "testdata/stall.yaml"))
	b, err := gemini.New(t.Context(), gemini.Config{Model: "gemini-3-flash-preview", APIKey: "k", BaseURL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	// The idle timeout is what is tested, so it cannot be a generous
	// safety net; 1 s leaves a loaded machine time for the fake server's
	// first chunk.
	m := model.New(b, model.RetryPolicy{BaseDelay: time.Millisecond, IdleTimeout: time.Second})
	req := &model.Request{Messages: []model.Message{model.UserText("hi")}}

	chunks, err := collect(t.Context(), m, req)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := chunks[0].(model.Retry); !ok || !errors.Is(r.Err, model.ErrStalled) {
		t.Errorf("first chunk %+v, want a retry after a stall", chunks[0])
	}
	if got := done(t, chunks).Text(); got != "Back." {
		t.Errorf("reply %q", got)
	}

	_, err = collect(t.Context(), m, req)
	if !errors.Is(err, model.ErrStalled) || !strings.Contains(err.Error(), "nothing received for 1s") {
		t.Fatalf("err = %v", err)
	}
	if p, ok := model.PartialMessage(err); !ok || p.Text() != "Half" {
		t.Errorf("partial %+v", p)
	}
}
