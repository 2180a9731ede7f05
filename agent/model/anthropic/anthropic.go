// Package anthropic is the model.Backend for Claude through Anthropic's
// Messages API: streaming over net/http, extended thinking with its
// signatures kept, tool use, images and usage.
package anthropic

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/internal/sse"
)

// apiVersion is the anthropic-version header the wire format follows.
const apiVersion = "2023-06-01"

// defaultMaxTokens is sent when the settings give no max_tokens, which the
// API requires.
const defaultMaxTokens = 16384

// Config says which model to use and where.
type Config struct {
	Model      string // e.g. "claude-sonnet-4-5"
	BaseURL    string // default https://api.anthropic.com; /v1/messages is appended
	APIKey     string
	Settings   model.Settings
	HTTPClient *http.Client // nil: http.DefaultClient
}

// Backend streams from the Messages API. Wrap it with model.New.
type Backend struct{ cfg Config }

// New makes a backend; it checks the configuration but does not connect.
func New(cfg Config) (*Backend, error) {
	if cfg.Model == "" {
		return nil, errors.New("anthropic: empty model name")
	}
	if cfg.APIKey == "" {
		return nil, errors.New("no Anthropic API key: set ANTHROPIC_API_KEY in the environment")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = "https://api.anthropic.com"
	}
	if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		return nil, fmt.Errorf("anthropic: base URL %q must start with http:// or https://", cfg.BaseURL)
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	return &Backend{cfg: cfg}, nil
}

// Name returns "anthropic:<model>".
func (b *Backend) Name() string { return "anthropic:" + b.cfg.Model }

// StreamOnce posts one streaming Messages request.
func (b *Backend) StreamOnce(ctx context.Context, req *model.Request) iter.Seq2[model.Chunk, error] {
	return sse.Post(ctx, sse.Request{
		Name:    b.Name(),
		Client:  b.cfg.HTTPClient,
		BaseURL: b.cfg.BaseURL,
		URL:     b.cfg.BaseURL + "/v1/messages",
		Header:  http.Header{"X-Api-Key": {b.cfg.APIKey}, "Anthropic-Version": {apiVersion}},
		Body:    b.request(req),
		Read:    readStream,
	})
}

// The request shape.
type messagesRequest struct {
	Model         string    `json:"model"`
	MaxTokens     int       `json:"max_tokens"`
	System        string    `json:"system,omitempty"`
	Messages      []message `json:"messages"`
	Tools         []tool    `json:"tools,omitempty"`
	Stream        bool      `json:"stream"`
	Thinking      *thinking `json:"thinking,omitempty"`
	Temperature   *float64  `json:"temperature,omitempty"`
	TopP          *float64  `json:"top_p,omitempty"`
	StopSequences []string  `json:"stop_sequences,omitempty"`
}

type thinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens,omitempty"`
}

type message struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

// block is a content block; the fields used depend on Type.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	Signature string          `json:"signature,omitempty"`
	Source    *imageSource    `json:"source,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   []block         `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

func (b *Backend) request(req *model.Request) messagesRequest {
	s := b.cfg.Settings
	mr := messagesRequest{
		Model:         b.cfg.Model,
		MaxTokens:     defaultMaxTokens,
		System:        req.System,
		Stream:        true,
		Temperature:   s.Temperature,
		TopP:          s.TopP,
		StopSequences: s.StopSequences,
	}
	if s.MaxTokens != nil {
		mr.MaxTokens = *s.MaxTokens
	}
	if t := s.AnthropicThinking; t != nil && t.Type == "enabled" {
		// The budget must stay below max_tokens: grow the default limit,
		// or shrink the budget under a limit the user set, down to the
		// API's minimum of 1024, below which thinking is left off.
		budget := t.BudgetTokens
		switch {
		case s.MaxTokens == nil && mr.MaxTokens <= budget:
			mr.MaxTokens = budget + defaultMaxTokens
		case mr.MaxTokens <= budget:
			budget = mr.MaxTokens - 1
		}
		if budget >= 1024 {
			mr.Thinking = &thinking{Type: "enabled", BudgetTokens: budget}
		}
	}
	for _, m := range req.Messages {
		if msg, ok := convert(m, mr.Thinking != nil); ok {
			mr.Messages = append(mr.Messages, msg)
		}
	}
	for _, t := range req.Tools {
		schema := t.Parameters
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		mr.Tools = append(mr.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	return mr
}

// convert maps a message to content blocks. Thinking goes back only when it
// came from Claude with its signature and thinking is on; other providers'
// thoughts are left out.
func convert(m model.Message, thinkingOn bool) (message, bool) {
	own := m.Model == "" || strings.HasPrefix(m.Model, "anthropic:")
	out := message{Role: "user"}
	if m.Role == model.RoleModel {
		out.Role = "assistant"
	}
	for _, p := range m.Parts {
		switch {
		case p.FunctionCall != nil:
			input := p.FunctionCall.Args
			if !model.ArgsComplete(input) {
				input, _ = json.Marshal(map[string]any{"arguments": string(p.FunctionCall.Args)})
			}
			out.Content = append(out.Content, block{Type: "tool_use", ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Input: input})
		case p.FunctionResponse != nil:
			r := p.FunctionResponse
			res := block{Type: "tool_result", ToolUseID: r.ID, IsError: r.IsError}
			if r.Output != "" || len(r.Images) == 0 {
				res.Content = append(res.Content, block{Type: "text", Text: nonEmpty(r.Output)})
			}
			for _, img := range r.Images {
				res.Content = append(res.Content, imageBlock(img))
			}
			out.Content = append(out.Content, res)
		case p.Image != nil:
			out.Content = append(out.Content, imageBlock(*p.Image))
		case p.Thought:
			if own && thinkingOn && len(p.Signature) > 0 {
				out.Content = append(out.Content, block{Type: "thinking", Thinking: p.Text, Signature: string(p.Signature)})
			}
		case p.Text != "":
			out.Content = append(out.Content, block{Type: "text", Text: p.Text})
		}
	}
	return out, len(out.Content) > 0
}

// nonEmpty stands in for an empty tool output, which the API rejects.
func nonEmpty(s string) string {
	if s == "" {
		return "(no output)"
	}
	return s
}

// imageBlock is an image block, or a document block for a PDF.
func imageBlock(img model.Image) block {
	typ := "image"
	if img.MIMEType == "application/pdf" {
		typ = "document"
	}
	return block{Type: typ, Source: &imageSource{Type: "base64", MediaType: img.MIMEType, Data: base64.StdEncoding.EncodeToString(img.Data)}}
}

// AcceptsMedia: Claude reads images and PDFs (as document blocks, also in
// tool results), not audio or video.
func (b *Backend) AcceptsMedia(mimeType string) bool {
	return model.IsImage(mimeType) || mimeType == "application/pdf"
}

// streamEvent is one event of the stream; the fields used depend on Type.
type streamEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		Usage usage `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *usage         `json:"usage"`
	Error *sse.WireError `json:"error"`
}

type usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
}

// openBlock is a content block still streaming.
type openBlock struct {
	kind      string // text, thinking, tool_use, or another type we skip
	id, name  string
	input     bytes.Buffer
	signature string
}

// readStream parses a Messages SSE body. Text and thinking pass through as
// they come; a thinking block's signature closes it; tool calls are yielded
// when their block ends. Claude reports thinking inside output_tokens, so
// ThinkingTokens stays 0.
//
// A tool_use block that ends with no input at all is held back until the
// reply goes on or stops: when the reply stops at max_tokens right after
// it, the cut fell before its input, so it is yielded with arguments that
// are not an object (a cut call, which never runs) instead of as {}.
func readStream(body io.Reader) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		blocks := map[int]*openBlock{}
		var u model.Usage
		stopped := false
		var held *model.FunctionCall // a tool_use that ended without input
		release := func(cut bool) bool {
			if held == nil {
				return true
			}
			c := *held
			held = nil
			if cut {
				c.Args = json.RawMessage(`""`)
			}
			return yield(model.FunctionCallChunk{Call: c}, nil)
		}
		for ev, err := range sse.Read(body) {
			if err != nil {
				yield(nil, err)
				return
			}
			var e streamEvent
			if err := json.Unmarshal(ev.Data, &e); err != nil {
				yield(nil, fmt.Errorf("malformed stream event %.200q: %w", ev.Data, err))
				return
			}
			var out model.Chunk
			if e.Type == "content_block_start" || e.Type == "content_block_delta" {
				// The reply went on, so the held call was whole.
				if !release(false) {
					return
				}
			}
			switch e.Type {
			case "message_start":
				if e.Message != nil {
					mu := e.Message.Usage
					u.InputTokens = mu.InputTokens + mu.CacheReadInputTokens + mu.CacheCreationInputTokens
					u.CachedTokens = mu.CacheReadInputTokens
					u.OutputTokens = mu.OutputTokens
				}
			case "content_block_start":
				if e.ContentBlock != nil {
					blocks[e.Index] = &openBlock{kind: e.ContentBlock.Type, id: e.ContentBlock.ID, name: e.ContentBlock.Name}
				}
			case "content_block_delta":
				blk := blocks[e.Index]
				if blk == nil || e.Delta == nil {
					continue
				}
				switch e.Delta.Type {
				case "text_delta":
					out = model.TextDelta{Text: e.Delta.Text}
				case "thinking_delta":
					out = model.ThoughtDelta{Text: e.Delta.Thinking}
				case "signature_delta":
					blk.signature += e.Delta.Signature
				case "input_json_delta":
					blk.input.WriteString(e.Delta.PartialJSON)
				}
			case "content_block_stop":
				blk := blocks[e.Index]
				delete(blocks, e.Index)
				switch {
				case blk == nil:
				case blk.kind == "thinking" && blk.signature != "":
					out = model.ThoughtDelta{Signature: []byte(blk.signature)}
				case blk.kind == "tool_use" && len(bytes.TrimSpace(blk.input.Bytes())) == 0:
					held = &model.FunctionCall{ID: blk.id, Name: blk.name, Args: json.RawMessage(`{}`)}
				case blk.kind == "tool_use":
					out = model.FunctionCallChunk{Call: model.FunctionCall{ID: blk.id, Name: blk.name, Args: model.ArgsJSON(blk.input.Bytes())}}
				}
			case "message_delta":
				if e.Usage != nil {
					u.OutputTokens = e.Usage.OutputTokens
				}
				if e.Delta != nil && e.Delta.StopReason != "" {
					reason := stopReason(e.Delta.StopReason)
					if !release(reason == model.StopMaxTokens) {
						return
					}
					out = model.Finish{Reason: reason}
				}
			case "message_stop":
				stopped = true
			case "error":
				if e.Error != nil {
					yield(nil, &model.APIError{StatusCode: errorStatus(e.Error.Type), Status: e.Error.Type, Message: e.Error.Message})
					return
				}
			}
			if out != nil && !yield(out, nil) {
				return
			}
			if stopped {
				break
			}
		}
		if !stopped {
			yield(nil, fmt.Errorf("stream ended before message_stop: %w", io.ErrUnexpectedEOF))
			return
		}
		if !release(false) { // no stop reason came: the call stands as sent
			return
		}
		yield(model.UsageChunk{Usage: u}, nil)
	}
}

// errorStatus gives an in-stream error the HTTP status it would have had,
// so that overloads are retried.
func errorStatus(t string) int {
	switch t {
	case "overloaded_error":
		return 529
	case "rate_limit_error":
		return 429
	case "invalid_request_error":
		return 400
	}
	return 500
}

func stopReason(r string) model.StopReason {
	switch r {
	case "end_turn", "tool_use", "stop_sequence", "pause_turn":
		return model.StopEnd
	case "max_tokens":
		return model.StopMaxTokens
	case "refusal":
		return model.StopSafety
	}
	return model.StopOther
}
