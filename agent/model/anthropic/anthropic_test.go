package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/anthropic"
	"github.com/freeact/desktop/agent/model/modeltest"
)

var fastRetry = model.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}

func newModel(t *testing.T, srv *modeltest.Server, settings model.Settings) model.Model {
	t.Helper()
	b, err := anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5", BaseURL: srv.URL(), APIKey: "ak-1", Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	return model.New(b, fastRetry)
}

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
	d, ok := chunks[len(chunks)-1].(model.Done)
	if !ok {
		t.Fatalf("last chunk is %T, want model.Done", chunks[len(chunks)-1])
	}
	return d.Message
}

func TestToolRoundtrip(t *testing.T) {
	srv := modeltest.NewAnthropic(t, modeltest.LoadScenario(t, "testdata/tool_roundtrip.yaml"))
	m := newModel(t, srv, model.DefaultSettings())
	png := model.Image{MIMEType: "image/png", Data: []byte("\x89PNG square")}
	req := &model.Request{
		System:   "You are a code-action agent.",
		Messages: []model.Message{model.UserMessage("Draw a square", png)},
		Tools:    []model.Tool{{Name: "ipybox_execute_ipython_cell", Description: "Run code", Parameters: json.RawMessage(`{"type":"object","properties":{"code":{"type":"string"}}}`)}},
	}
	chunks, err := collect(t.Context(), m, req)
	if err != nil {
		t.Fatal(err)
	}
	reply := done(t, chunks)
	if reply.Thoughts() != "A square needs four equal sides." || reply.Text() != "Drawing it." {
		t.Errorf("thoughts %q text %q", reply.Thoughts(), reply.Text())
	}
	if sig := string(reply.Parts[0].Signature); sig != "claude-sig-1" {
		t.Errorf("thinking signature %q", sig)
	}
	calls := reply.FunctionCalls()
	if len(calls) != 1 || calls[0].ID != "toolu_fake_1_2" || string(calls[0].Args) != `{"code":"draw(4)"}` {
		t.Fatalf("calls = %+v", calls)
	}
	if reply.Usage == nil || reply.Usage.InputTokens != 300 || reply.Usage.OutputTokens != 80 {
		t.Errorf("usage %+v", reply.Usage)
	}

	// Resume from JSON, as a session does, and answer the call.
	history := []model.Message{req.Messages[0], reply, model.ToolResults(model.FunctionResponse{
		ID: calls[0].ID, Name: calls[0].Name, Output: "saved square.png", Images: []model.Image{png},
	})}
	data, _ := json.Marshal(history)
	var resumed []model.Message
	if err := json.Unmarshal(data, &resumed); err != nil {
		t.Fatal(err)
	}
	req.Messages = resumed
	chunks, err = collect(t.Context(), m, req)
	if err != nil {
		t.Fatal(err)
	}
	if got := done(t, chunks).Text(); got != "Here is your square." {
		t.Errorf("second reply %q", got)
	}

	first := srv.Requests()[0]
	if first.APIKey != "ak-1" {
		t.Errorf("key %q", first.APIKey)
	}
	var body struct {
		MaxTokens int `json:"max_tokens"`
		Thinking  struct {
			BudgetTokens int `json:"budget_tokens"`
		} `json:"thinking"`
	}
	if err := json.Unmarshal(first.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Thinking.BudgetTokens != 8192 || body.MaxTokens <= body.Thinking.BudgetTokens {
		t.Errorf("max_tokens %d, budget %d", body.MaxTokens, body.Thinking.BudgetTokens)
	}
}

// TestForeignThoughtsStayHome checks that thoughts from another provider,
// whose signatures Claude cannot verify, are not sent as thinking blocks.
func TestForeignThoughtsStayHome(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte("turns: [{reply: [{text: ok}]}]"))
	if err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewAnthropic(t, sc)
	history := []model.Message{
		model.UserText("hi"),
		{Role: model.RoleModel, Model: "google:gemini-3-flash-preview", Parts: []model.Part{
			{Text: "gemini thinking", Thought: true, Signature: []byte("gemini-sig")},
			{Text: "Hello from Gemini."},
		}},
		model.UserText("and now?"),
	}
	if _, err := collect(t.Context(), newModel(t, srv, model.DefaultSettings()), &model.Request{Messages: history}); err != nil {
		t.Fatal(err)
	}
	sent := srv.Requests()[0].Messages[1]
	if len(sent.Parts) != 1 || sent.Text() != "Hello from Gemini." {
		t.Errorf("model message sent as %+v", sent.Parts)
	}
}

func TestRetryThenSuccess(t *testing.T) {
	srv := modeltest.NewAnthropic(t, modeltest.LoadScenario(t, "testdata/retry_overloaded.yaml"))
	chunks, err := collect(t.Context(), newModel(t, srv, model.Settings{}), &model.Request{Messages: []model.Message{model.UserText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	var codes []int
	for _, c := range chunks {
		if r, ok := c.(model.Retry); ok {
			var apiErr *model.APIError
			if errors.As(r.Err, &apiErr) {
				codes = append(codes, apiErr.StatusCode)
			}
		}
	}
	if len(codes) != 2 || codes[0] != 529 || codes[1] != 429 {
		t.Errorf("retried codes %v", codes)
	}
	if got := done(t, chunks).Text(); got != "Made it." {
		t.Errorf("reply %q", got)
	}
}

func TestBadRequestNotRetried(t *testing.T) {
	srv := modeltest.NewAnthropic(t, modeltest.LoadScenario(t, "testdata/bad_request_400.yaml"))
	_, err := collect(t.Context(), newModel(t, srv, model.Settings{}), &model.Request{Messages: []model.Message{model.UserText("hi")}})
	if err == nil || !strings.Contains(err.Error(), "anthropic:claude-sonnet-4-5: HTTP 400 invalid_request_error: messages.1.content.0: thinking block signature is invalid") {
		t.Fatalf("err = %v", err)
	}
	if len(srv.Requests()) != 1 {
		t.Error("a 400 was retried")
	}
}

func TestCancelMidStream(t *testing.T) {
	srv := modeltest.NewAnthropic(t, modeltest.LoadScenario(t, "testdata/hang.yaml"))
	// A minute's safety net: a cancel that does not work ends in
	// DeadlineExceeded instead of hanging the test.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var err error
	for c, e := range newModel(t, srv, model.Settings{}).Stream(ctx, &model.Request{Messages: []model.Message{model.UserText("hi")}}) {
		if e != nil {
			err = e
			break
		}
		if _, ok := c.(model.TextDelta); ok {
			cancel()
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if p, ok := model.PartialMessage(err); !ok || p.Text() != "Half an" || p.Thoughts() != "Hmm" {
		t.Errorf("partial %+v", p)
	}
}

func TestThinkingBudgetFitsMaxTokens(t *testing.T) {
	for _, tt := range []struct {
		maxTokens         *int
		budget            int
		wantMax, wantBudg int
	}{
		{nil, 8192, 16384, 8192},
		{nil, 20000, 36384, 20000},
		{ptr(4000), 8192, 4000, 3999},
		{ptr(1000), 8192, 1000, 0}, // too small to think
	} {
		sc, _ := modeltest.ParseScenario([]byte("turns: [{reply: [{text: ok}]}]"))
		srv := modeltest.NewAnthropic(t, sc)
		settings := model.Settings{MaxTokens: tt.maxTokens, AnthropicThinking: &model.AnthropicThinking{Type: "enabled", BudgetTokens: tt.budget}}
		if _, err := collect(t.Context(), newModel(t, srv, settings), &model.Request{Messages: []model.Message{model.UserText("hi")}}); err != nil {
			t.Fatal(err)
		}
		var body struct {
			MaxTokens int `json:"max_tokens"`
			Thinking  *struct {
				BudgetTokens int `json:"budget_tokens"`
			} `json:"thinking"`
		}
		if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
			t.Fatal(err)
		}
		budget := 0
		if body.Thinking != nil {
			budget = body.Thinking.BudgetTokens
		}
		if body.MaxTokens != tt.wantMax || budget != tt.wantBudg {
			t.Errorf("max_tokens %v budget %d: sent %d / %d, want %d / %d", tt.maxTokens, tt.budget, body.MaxTokens, budget, tt.wantMax, tt.wantBudg)
		}
	}
}

func ptr(n int) *int { return &n }

func TestNewRequiresKey(t *testing.T) {
	_, err := anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5"})
	if err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Fatalf("err = %v", err)
	}
}

// A PDF a tool read goes to Claude as a document block inside the tool
// result; audio is not offered to it.
func TestPDFToolResult(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte("turns: [{expect: {last: [{role: user, response: filesystem_read_media_file, mime: application/pdf}]}, reply: [{text: ok}]}]"))
	if err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewAnthropic(t, sc)
	b, err := anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5", BaseURL: srv.URL(), APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	m := model.New(b, fastRetry)
	if !model.AcceptsMedia(m, "application/pdf") || model.AcceptsMedia(m, "audio/mpeg") {
		t.Error("AcceptsMedia")
	}
	history := []model.Message{
		model.UserText("read it"),
		{Role: model.RoleModel, Parts: []model.Part{{FunctionCall: &model.FunctionCall{ID: "toolu_1", Name: "filesystem_read_media_file", Args: json.RawMessage(`{"path":"a.pdf"}`)}}}},
		model.ToolResults(model.FunctionResponse{ID: "toolu_1", Name: "filesystem_read_media_file", Output: "PDF a.pdf", Images: []model.Image{{MIMEType: "application/pdf", Data: []byte("%PDF-1.4")}}}),
	}
	if _, err := collect(t.Context(), m, &model.Request{Messages: history}); err != nil {
		t.Fatal(err)
	}
	if body := string(srv.Requests()[0].Body); !strings.Contains(body, `"type":"document"`) {
		t.Errorf("no document block: %s", body)
	}
}
