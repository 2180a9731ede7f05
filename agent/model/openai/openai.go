// Package openai is the model.Backend for OpenAI-compatible servers (OpenAI,
// Ollama, LM Studio, vLLM, OpenRouter, ...): streaming chat completions over
// net/http with tools, images and reasoning text where the server sends it.
package openai

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/internal/sse"
)

// Config says which model to use and where.
type Config struct {
	Model   string // the name the server knows, e.g. "gpt-5" or "qwen3"
	BaseURL string // e.g. "https://api.openai.com/v1"; /chat/completions is appended
	APIKey  string // sent as a bearer token when not empty
	// Label is the model string shown in messages and errors; default
	// "openai:<Model>".
	Label      string
	Settings   model.Settings
	HTTPClient *http.Client // nil: http.DefaultClient
	// MaxCompletionTokens sends max_tokens as max_completion_tokens, which
	// OpenAI's reasoning models require and other servers may not know.
	MaxCompletionTokens bool
}

// Backend streams chat completions. Wrap it with model.New.
type Backend struct{ cfg Config }

// New makes a backend; it checks the configuration but does not connect.
func New(cfg Config) (*Backend, error) {
	if cfg.Model == "" {
		return nil, errors.New("openai: empty model name")
	}
	if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		return nil, fmt.Errorf("openai: base URL %q must start with http:// or https://", cfg.BaseURL)
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.Label == "" {
		cfg.Label = "openai:" + cfg.Model
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	return &Backend{cfg: cfg}, nil
}

// Name returns the model string.
func (b *Backend) Name() string { return b.cfg.Label }

// StreamOnce posts one streaming chat completion request.
func (b *Backend) StreamOnce(ctx context.Context, req *model.Request) iter.Seq2[model.Chunk, error] {
	header := http.Header{}
	if b.cfg.APIKey != "" {
		header.Set("Authorization", "Bearer "+b.cfg.APIKey)
	}
	return sse.Post(ctx, sse.Request{
		Name:    b.Name(),
		Client:  b.cfg.HTTPClient,
		BaseURL: b.cfg.BaseURL,
		URL:     b.cfg.BaseURL + "/chat/completions",
		Header:  header,
		Body:    b.request(req),
		Read:    readStream,
	})
}

// The request shape.
type chatRequest struct {
	Model         string        `json:"model"`
	Messages      []chatMessage `json:"messages"`
	Tools         []chatTool    `json:"tools,omitempty"`
	Stream        bool          `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           *int     `json:"max_tokens,omitempty"`
	MaxCompletionTokens *int     `json:"max_completion_tokens,omitempty"`
	Temperature         *float64 `json:"temperature,omitempty"`
	TopP                *float64 `json:"top_p,omitempty"`
	PresencePenalty     *float64 `json:"presence_penalty,omitempty"`
	FrequencyPenalty    *float64 `json:"frequency_penalty,omitempty"`
	Seed                *int     `json:"seed,omitempty"`
	Stop                []string `json:"stop,omitempty"`
	ParallelToolCalls   *bool    `json:"parallel_tool_calls,omitempty"`
	ToolChoice          string   `json:"tool_choice,omitempty"`
	ReasoningEffort     string   `json:"reasoning_effort,omitempty"`
}

type chatMessage struct {
	Role       string     `json:"role"`
	Content    any        `json:"content"` // string, []contentPart or nil
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
	File     *fileData `json:"file,omitempty"`
}

// fileData is a file sent inline (OpenAI's "file" content part, for PDFs).
type fileData struct {
	Filename string `json:"filename"`
	FileData string `json:"file_data"` // a data URL
}

type imageURL struct {
	URL string `json:"url"`
}

type toolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function functionCall `json:"function"`
}

type functionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

func (b *Backend) request(req *model.Request) chatRequest {
	s := b.cfg.Settings
	cr := chatRequest{
		Model:             b.cfg.Model,
		Stream:            true,
		Temperature:       s.Temperature,
		TopP:              s.TopP,
		PresencePenalty:   s.PresencePenalty,
		FrequencyPenalty:  s.FrequencyPenalty,
		Seed:              s.Seed,
		Stop:              s.StopSequences,
		ParallelToolCalls: s.ParallelToolCalls,
		ReasoningEffort:   s.OpenAIReasoningEffort,
	}
	cr.StreamOptions.IncludeUsage = true
	if b.cfg.MaxCompletionTokens {
		cr.MaxCompletionTokens = s.MaxTokens
	} else {
		cr.MaxTokens = s.MaxTokens
	}
	if req.System != "" {
		cr.Messages = append(cr.Messages, chatMessage{Role: "system", Content: req.System})
	}
	for _, m := range req.Messages {
		cr.Messages = append(cr.Messages, messages(m)...)
	}
	for _, t := range req.Tools {
		ct := chatTool{Type: "function"}
		ct.Function.Name, ct.Function.Description = t.Name, t.Description
		ct.Function.Parameters = t.Parameters
		if len(ct.Function.Parameters) == 0 {
			ct.Function.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		cr.Tools = append(cr.Tools, ct)
	}
	if len(cr.Tools) > 0 {
		// A request without tools (a compaction's) has nothing to choose.
		cr.ToolChoice = s.ToolChoice
	}
	return cr
}

// messages converts one message. A user message becomes the tool messages of
// its function responses, followed by a user message with its text and
// images, including the images of function responses, which tool messages
// cannot carry. Thoughts are not sent back.
func messages(m model.Message) []chatMessage {
	if m.Role == model.RoleModel {
		cm := chatMessage{Role: "assistant"}
		text := m.Text()
		for _, c := range m.FunctionCalls() {
			args := string(c.Args)
			if !model.ArgsComplete(c.Args) {
				// Arguments that were not a JSON object go back wrapped,
				// as Claude's do: servers refuse a request whose
				// arguments do not parse (llama.cpp answers 500).
				wrapped, _ := json.Marshal(map[string]string{"arguments": string(c.Args)})
				args = string(wrapped)
			}
			cm.ToolCalls = append(cm.ToolCalls, toolCall{ID: c.ID, Type: "function", Function: functionCall{Name: c.Name, Arguments: args}})
		}
		if text != "" || len(cm.ToolCalls) == 0 {
			cm.Content = text
		}
		return []chatMessage{cm}
	}
	var out []chatMessage
	var parts []contentPart
	for _, p := range m.Parts {
		switch {
		case p.FunctionResponse != nil:
			r := p.FunctionResponse
			out = append(out, chatMessage{Role: "tool", ToolCallID: r.ID, Content: r.Output})
			if len(r.Images) > 0 {
				parts = append(parts, contentPart{Type: "text", Text: fmt.Sprintf("Images returned by %s (call %s):", r.Name, r.ID)})
				for _, img := range r.Images {
					parts = append(parts, imagePart(img))
				}
			}
		case p.Image != nil:
			parts = append(parts, imagePart(*p.Image))
		case p.Thought:
		default:
			if p.Text != "" {
				parts = append(parts, contentPart{Type: "text", Text: p.Text})
			}
		}
	}
	switch {
	case len(parts) == 1 && parts[0].Type == "text":
		out = append(out, chatMessage{Role: "user", Content: parts[0].Text})
	case len(parts) > 0:
		out = append(out, chatMessage{Role: "user", Content: parts})
	case len(out) == 0:
		out = append(out, chatMessage{Role: "user", Content: ""})
	}
	return out
}

// imagePart is an image_url part, or a file part for a PDF.
func imagePart(img model.Image) contentPart {
	url := "data:" + img.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
	if img.MIMEType == "application/pdf" {
		return contentPart{Type: "file", File: &fileData{Filename: "document.pdf", FileData: url}}
	}
	return contentPart{Type: "image_url", ImageURL: &imageURL{URL: url}}
}

// AcceptsMedia: images everywhere; PDFs on OpenAI's own API, whose chat
// completions take them as file parts (other compatible servers do not).
func (b *Backend) AcceptsMedia(mimeType string) bool {
	return model.IsImage(mimeType) || mimeType == "application/pdf" && strings.HasPrefix(b.Name(), "openai:")
}
