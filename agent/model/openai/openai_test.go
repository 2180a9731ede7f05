package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/agent/model/openai"
)

var fastRetry = model.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}

func newModel(t *testing.T, srv *modeltest.Server, settings model.Settings) model.Model {
	t.Helper()
	b, err := openai.New(openai.Config{Model: "qwen3", BaseURL: srv.URL() + "/v1", APIKey: "k-123", Label: "ollama:qwen3", Settings: settings})
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
	if len(chunks) == 0 {
		t.Fatal("no chunks")
	}
	d, ok := chunks[len(chunks)-1].(model.Done)
	if !ok {
		t.Fatalf("last chunk is %T, want model.Done", chunks[len(chunks)-1])
	}
	return d.Message
}

func TestToolRoundtrip(t *testing.T) {
	srv := modeltest.NewOpenAI(t, modeltest.LoadScenario(t, "testdata/tool_roundtrip.yaml"))
	maxTokens := 2048
	m := newModel(t, srv, model.Settings{MaxTokens: &maxTokens, OpenAIReasoningEffort: "high", ToolChoice: "required"})
	png := model.Image{MIMEType: "image/png", Data: []byte("\x89PNG fake")}
	req := &model.Request{
		System:   "You are a code-action agent.",
		Messages: []model.Message{model.UserMessage("Plot a sine", png)},
		Tools: []model.Tool{
			{Name: "ipybox_execute_ipython_cell", Description: "Run code", Parameters: json.RawMessage(`{"type":"object","properties":{"code":{"type":"string"}}}`)},
			{Name: "filesystem_read_media_file", Description: "Read an image"},
		},
	}
	chunks, err := collect(t.Context(), m, req)
	if err != nil {
		t.Fatal(err)
	}
	reply := done(t, chunks)
	if reply.Thoughts() != "Plotting needs matplotlib." || reply.Text() != "Running two steps." {
		t.Errorf("thoughts %q text %q", reply.Thoughts(), reply.Text())
	}
	calls := reply.FunctionCalls()
	if len(calls) != 2 {
		t.Fatalf("calls = %+v", calls)
	}
	if calls[0].ID != "call_1_0" || string(calls[0].Args) != `{"code":"import math\nprint(math.sin(1))"}` {
		t.Errorf("first call = %+v / %s", calls[0], calls[0].Args)
	}
	if calls[1].ID != "call_media" || string(calls[1].Args) != `{"path":"plot.png"}` {
		t.Errorf("second call = %+v / %s", calls[1], calls[1].Args)
	}
	if reply.Usage == nil || *reply.Usage != (model.Usage{InputTokens: 50, OutputTokens: 30, ThinkingTokens: 12}) {
		t.Errorf("usage = %+v", reply.Usage)
	}
	if reply.Model != "ollama:qwen3" || reply.Stop != model.StopEnd {
		t.Errorf("model %q stop %q", reply.Model, reply.Stop)
	}

	req.Messages = append(req.Messages, reply, model.ToolResults(
		model.FunctionResponse{ID: calls[0].ID, Name: calls[0].Name, Output: "0.8414709848078965\n"},
		model.FunctionResponse{ID: calls[1].ID, Name: calls[1].Name, Output: "plot.png (640x480)", Images: []model.Image{png}},
	))
	chunks, err = collect(t.Context(), m, req)
	if err != nil {
		t.Fatal(err)
	}
	if got := done(t, chunks).Text(); got != "Here is the plot." {
		t.Errorf("second reply %q", got)
	}
	first := srv.Requests()[0]
	if first.APIKey != "k-123" {
		t.Errorf("API key = %q", first.APIKey)
	}
	var body map[string]any
	if err := json.Unmarshal(first.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body["max_tokens"] != 2048.0 || body["reasoning_effort"] != "high" || body["tool_choice"] != "required" || body["stream_options"] == nil {
		t.Errorf("settings not sent: %s", first.Body)
	}
	if !strings.Contains(string(first.Body), `"parameters":{"type":"object","properties":{}}`) {
		t.Errorf("a tool without parameters needs an empty object schema: %s", first.Body)
	}
}

func TestRetryThenSuccess(t *testing.T) {
	srv := modeltest.NewOpenAI(t, modeltest.LoadScenario(t, "testdata/retry_429.yaml"))
	chunks, err := collect(t.Context(), newModel(t, srv, model.Settings{}), &model.Request{Messages: []model.Message{model.UserText("hi")}})
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
		t.Fatalf("retries = %v", retries)
	}
	if retries[0].Delay != fastRetry.MaxDelay {
		t.Errorf("Retry-After 1s should be capped to %v, got %v", fastRetry.MaxDelay, retries[0].Delay)
	}
	if !strings.Contains(retries[1].Err.Error(), "502") {
		t.Errorf("second retry error %v", retries[1].Err)
	}
	if got := done(t, chunks).Text(); got != "Done." {
		t.Errorf("reply %q", got)
	}
}

func TestBadRequestNotRetried(t *testing.T) {
	srv := modeltest.NewOpenAI(t, modeltest.LoadScenario(t, "testdata/bad_request_400.yaml"))
	_, err := collect(t.Context(), newModel(t, srv, model.Settings{}), &model.Request{Messages: []model.Message{model.UserText("hi")}})
	var apiErr *model.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(err.Error(), "Invalid schema for function") {
		t.Fatalf("err = %v", err)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("a 400 was retried")
	}
}

func TestMalformedStream(t *testing.T) {
	srv := modeltest.NewOpenAI(t, modeltest.LoadScenario(t, "testdata/malformed.yaml"))
	_, err := collect(t.Context(), newModel(t, srv, model.Settings{}), &model.Request{Messages: []model.Message{model.UserText("hi")}})
	if err == nil || !strings.Contains(err.Error(), "malformed stream event") {
		t.Fatalf("err = %v", err)
	}
	if p, ok := model.PartialMessage(err); !ok || p.Text() != "Partial" {
		t.Errorf("partial = %+v", p)
	}
}

func TestCancelMidStream(t *testing.T) {
	srv := modeltest.NewOpenAI(t, modeltest.LoadScenario(t, "testdata/hang.yaml"))
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
	if p, ok := model.PartialMessage(err); !ok || p.Text() != "Half" {
		t.Errorf("partial = %+v", p)
	}
}

func TestConnectionRefused(t *testing.T) {
	b, err := openai.New(openai.Config{Model: "qwen3", BaseURL: "http://127.0.0.1:1/v1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = collect(t.Context(), model.New(b, model.RetryPolicy{MaxAttempts: 1}), &model.Request{Messages: []model.Message{model.UserText("hi")}})
	if err == nil || !strings.Contains(err.Error(), "is the server at http://127.0.0.1:1/v1 running?") {
		t.Fatalf("err = %v", err)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []openai.Config{{BaseURL: "http://x/v1"}, {Model: "m", BaseURL: "localhost:11434"}} {
		if _, err := openai.New(cfg); err == nil {
			t.Errorf("openai.New(%+v) succeeded", cfg)
		}
	}
}

// OpenAI's own API takes a PDF a tool read as a file part of the user
// message after the tool messages; other compatible servers are not
// offered PDFs.
func TestPDFToolResult(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte("turns: [{expect: {last: [{role: user, mime: application/pdf}]}, reply: [{text: ok}]}]"))
	if err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewOpenAI(t, sc)
	b, err := openai.New(openai.Config{Model: "gpt-5", BaseURL: srv.URL() + "/v1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	m := model.New(b, fastRetry)
	other, err := openai.New(openai.Config{Model: "qwen3", BaseURL: srv.URL() + "/v1", Label: "ollama:qwen3"})
	if err != nil {
		t.Fatal(err)
	}
	if !model.AcceptsMedia(m, "application/pdf") || model.AcceptsMedia(model.New(other, fastRetry), "application/pdf") || !model.AcceptsMedia(model.New(other, fastRetry), "image/png") {
		t.Error("AcceptsMedia")
	}
	history := []model.Message{
		model.UserText("read it"),
		{Role: model.RoleModel, Parts: []model.Part{{FunctionCall: &model.FunctionCall{ID: "call_1", Name: "filesystem_read_media_file", Args: json.RawMessage(`{"path":"a.pdf"}`)}}}},
		model.ToolResults(model.FunctionResponse{ID: "call_1", Name: "filesystem_read_media_file", Output: "PDF a.pdf", Images: []model.Image{{MIMEType: "application/pdf", Data: []byte("%PDF-1.4")}}}),
	}
	if _, err := collect(t.Context(), m, &model.Request{Messages: history}); err != nil {
		t.Fatal(err)
	}
	if body := string(srv.Requests()[0].Body); !strings.Contains(body, `"type":"file"`) || !strings.Contains(body, `"filename":"document.pdf"`) {
		t.Errorf("no file part: %s", body)
	}
}
