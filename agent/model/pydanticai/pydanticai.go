// Package pydanticai converts between model.Message and the messages of
// pydantic-ai (ModelMessage as its JSON serialisation writes them), which the
// Python freeact 0.10 and 0.11 keep in their session files:
//
//	{"kind": "request", "parts": [{"part_kind": "system-prompt" | "user-prompt" | "tool-return" | "retry-prompt", ...}]}
//	{"kind": "response", "parts": [{"part_kind": "text" | "thinking" | "tool-call", ...}],
//	 "model_name": ..., "provider_name": ..., "usage": {...}, "finish_reason": ...}
//
// Gemini's thought signatures are in a part's provider_details
// (thought_signature, base64), Claude's in a thinking part's signature.
// Decode reads what pydantic-ai 1.x writes; fields this app has no use for
// are skipped. Encode writes messages pydantic-ai reads back, so a session
// of freeact's that this app continues stays readable by freeact.
package pydanticai

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/freeact/desktop/agent/model"
)

// envelope is the part of a ModelMessage that says what it is.
type envelope struct {
	Kind         string            `json:"kind"`
	Parts        []json.RawMessage `json:"parts"`
	ModelName    string            `json:"model_name"`
	ProviderName string            `json:"provider_name"`
	Usage        *usage            `json:"usage"`
	FinishReason string            `json:"finish_reason"`
}

type usage struct {
	InputTokens     int            `json:"input_tokens"`
	OutputTokens    int            `json:"output_tokens"`
	CacheReadTokens int            `json:"cache_read_tokens"`
	Details         map[string]int `json:"details"`
}

// part holds the fields of every part kind this package reads.
type part struct {
	PartKind        string          `json:"part_kind"`
	Content         json.RawMessage `json:"content"`
	ToolName        string          `json:"tool_name"`
	ToolCallID      string          `json:"tool_call_id"`
	Args            json.RawMessage `json:"args"`
	Signature       *string         `json:"signature"`
	ProviderName    string          `json:"provider_name"`
	ProviderDetails map[string]any  `json:"provider_details"`
	Outcome         string          `json:"outcome"`
}

// binary is pydantic-ai's BinaryContent.
type binary struct {
	Kind      string `json:"kind"`
	Data      []byte `json:"data"` // base64 in JSON
	MediaType string `json:"media_type"`
}

// IsMessage reports whether raw is a pydantic-ai message rather than one of
// this app's: it has "kind" "request" or "response".
func IsMessage(raw json.RawMessage) bool {
	var v struct {
		Kind string `json:"kind"`
	}
	return json.Unmarshal(raw, &v) == nil && (v.Kind == "request" || v.Kind == "response")
}

// Decode converts one pydantic-ai message. ok is false for a message with
// nothing for this app's history: a request holding only the system prompt
// (this app sends its own) or only parts of tools the provider ran itself.
func Decode(raw json.RawMessage) (msg model.Message, ok bool, err error) {
	var env envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return msg, false, fmt.Errorf("pydantic-ai message: %w", err)
	}
	switch env.Kind {
	case "request":
		msg, err = decodeRequest(env)
	case "response":
		msg, err = decodeResponse(env)
	default:
		return msg, false, fmt.Errorf("pydantic-ai message: kind %q: want request or response", env.Kind)
	}
	if err != nil {
		return msg, false, fmt.Errorf("pydantic-ai %s: %w", env.Kind, err)
	}
	if len(msg.Parts) == 0 {
		return msg, false, nil
	}
	if err := msg.Validate(); err != nil {
		return msg, false, fmt.Errorf("pydantic-ai %s: %w", env.Kind, err)
	}
	return msg, true, nil
}

func decodeRequest(env envelope) (model.Message, error) {
	m := model.Message{Role: model.RoleUser}
	for i, raw := range env.Parts {
		var p part
		if err := json.Unmarshal(raw, &p); err != nil {
			return m, fmt.Errorf("part %d: %w", i, err)
		}
		switch p.PartKind {
		case "system-prompt":
			// This app sends its own system prompt with every request.
		case "user-prompt":
			parts, err := userContent(p.Content)
			if err != nil {
				return m, fmt.Errorf("part %d (user-prompt): %w", i, err)
			}
			m.Parts = append(m.Parts, parts...)
		case "tool-return":
			out, images, err := toolContent(p.Content)
			if err != nil {
				return m, fmt.Errorf("part %d (tool-return): %w", i, err)
			}
			m.Parts = append(m.Parts, model.Part{FunctionResponse: &model.FunctionResponse{
				ID: p.ToolCallID, Name: p.ToolName, Output: out, Images: images, IsError: p.Outcome == "failed",
			}})
		case "retry-prompt":
			text := retryText(p.Content)
			if p.ToolName == "" {
				m.Parts = append(m.Parts, model.Part{Text: text})
				continue
			}
			m.Parts = append(m.Parts, model.Part{FunctionResponse: &model.FunctionResponse{
				ID: p.ToolCallID, Name: p.ToolName, Output: text, IsError: true,
			}})
		default:
			return m, fmt.Errorf("part %d: part_kind %q is not one this app reads", i, p.PartKind)
		}
	}
	return m, nil
}

// userContent reads a user prompt: a string, or a list of strings and
// binary content (images, documents); URLs of media become a line of text.
func userContent(raw json.RawMessage) ([]model.Part, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []model.Part{{Text: s}}, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("content is neither text nor a list")
	}
	var out []model.Part
	for _, it := range items {
		if json.Unmarshal(it, &s) == nil {
			out = append(out, model.Part{Text: s})
			continue
		}
		var b struct {
			binary
			URL string `json:"url"`
		}
		if err := json.Unmarshal(it, &b); err != nil {
			return nil, err
		}
		switch {
		case b.Kind == "binary" && b.MediaType != "" && len(b.Data) > 0:
			out = append(out, model.Part{Image: &model.Image{MIMEType: b.MediaType, Data: b.Data}})
		case b.URL != "":
			out = append(out, model.Part{Text: fmt.Sprintf("[%s: %s]", strings.TrimSuffix(b.Kind, "-url"), b.URL)})
		default:
			return nil, fmt.Errorf("content item of kind %q", b.Kind)
		}
	}
	return out, nil
}

// toolContent reads what a tool returned: text stays text, binary content
// becomes images (media), anything else is JSON text.
func toolContent(raw json.RawMessage) (string, []model.Image, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil, nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		items = []json.RawMessage{raw}
	}
	var texts []string
	var images []model.Image
	for _, it := range items {
		var b binary
		if json.Unmarshal(it, &b) == nil && b.Kind == "binary" && len(b.Data) > 0 {
			images = append(images, model.Image{MIMEType: b.MediaType, Data: b.Data})
			continue
		}
		if json.Unmarshal(it, &s) == nil {
			texts = append(texts, s)
			continue
		}
		var c bytes.Buffer
		if err := json.Compact(&c, it); err != nil {
			return "", nil, err
		}
		texts = append(texts, c.String())
	}
	return strings.Join(texts, "\n"), images, nil
}

// retryText reads a retry prompt's content: text, or pydantic's list of
// validation errors.
func retryText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var c bytes.Buffer
	if json.Compact(&c, raw) == nil {
		return "Invalid arguments: " + c.String()
	}
	return string(raw)
}

func decodeResponse(env envelope) (model.Message, error) {
	m := model.Message{Role: model.RoleModel, Model: modelString(env.ProviderName, env.ModelName), Stop: stopReason(env.FinishReason)}
	if u := env.Usage; u != nil && (u.InputTokens > 0 || u.OutputTokens > 0) {
		thinking := u.Details["thoughts_tokens"] + u.Details["reasoning_tokens"]
		m.Usage = &model.Usage{InputTokens: u.InputTokens, OutputTokens: max(u.OutputTokens-thinking, 0), ThinkingTokens: thinking, CachedTokens: u.CacheReadTokens}
	}
	for i, raw := range env.Parts {
		var p part
		if err := json.Unmarshal(raw, &p); err != nil {
			return m, fmt.Errorf("part %d: %w", i, err)
		}
		sig, err := signature(p)
		if err != nil {
			return m, fmt.Errorf("part %d (%s): %w", i, p.PartKind, err)
		}
		switch p.PartKind {
		case "text", "thinking":
			var text string
			if err := json.Unmarshal(p.Content, &text); err != nil {
				return m, fmt.Errorf("part %d (%s): content is not text", i, p.PartKind)
			}
			m.Parts = append(m.Parts, model.Part{Text: text, Thought: p.PartKind == "thinking", Signature: sig})
		case "tool-call":
			args := json.RawMessage(`{}`)
			var s string
			switch {
			case len(p.Args) == 0 || string(p.Args) == "null":
			case json.Unmarshal(p.Args, &s) == nil:
				args = model.ArgsJSON([]byte(s)) // arguments as the model streamed them
			default:
				args = model.ArgsJSON(p.Args)
			}
			id := p.ToolCallID
			if id == "" {
				id = model.NewCallID()
			}
			m.Parts = append(m.Parts, model.Part{FunctionCall: &model.FunctionCall{ID: id, Name: p.ToolName, Args: args}, Signature: sig})
		case "builtin-tool-call", "builtin-tool-return", "native-tool-call", "native-tool-return", "file", "compaction":
			// Run or made by the provider itself: nothing this app can send
			// back to another model.
		default:
			return m, fmt.Errorf("part %d: part_kind %q is not one this app reads", i, p.PartKind)
		}
	}
	return m, nil
}

// signature is a part's provider signature: Gemini's thought signature
// (provider_details.thought_signature, base64) or a thinking part's
// signature (Claude, OpenAI).
func signature(p part) ([]byte, error) {
	if s, ok := p.ProviderDetails["thought_signature"].(string); ok && s != "" {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("thought_signature is not base64: %w", err)
		}
		return b, nil
	}
	if p.Signature != nil && *p.Signature != "" {
		return []byte(*p.Signature), nil
	}
	return nil, nil
}

// providers maps pydantic-ai's provider names to this app's model prefixes.
var providers = map[string]string{
	"google-gla": "google", "google-vertex": "google", "google": "google",
	"anthropic": "anthropic",
	"openai":    "openai", "openai-chat": "openai", "openai-responses": "openai",
}

// modelString is the "provider:name" of a response; "" when unknown.
func modelString(provider, name string) string {
	if name == "" {
		return ""
	}
	if p, ok := providers[provider]; ok {
		return p + ":" + name
	}
	if provider == "" {
		return name
	}
	return provider + ":" + name
}

func stopReason(r string) model.StopReason {
	switch r {
	case "", "stop", "tool_call":
		return model.StopEnd
	case "length":
		return model.StopMaxTokens
	case "content_filter":
		return model.StopSafety
	}
	return model.StopOther
}

// Encode converts one of this app's messages into a pydantic-ai message.
func Encode(m model.Message) (json.RawMessage, error) {
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("encode pydantic-ai message: %w", err)
	}
	if m.Role == model.RoleModel {
		return encodeResponse(m)
	}
	return encodeRequest(m)
}

type obj = map[string]any

func encodeRequest(m model.Message) (json.RawMessage, error) {
	var parts, media []obj
	var content []any
	for _, p := range m.Parts {
		switch {
		case p.FunctionResponse != nil:
			r := p.FunctionResponse
			tr := obj{"part_kind": "tool-return", "tool_name": r.Name, "content": r.Output, "tool_call_id": r.ID}
			if r.IsError {
				tr["outcome"] = "failed"
			}
			parts = append(parts, tr)
			if len(r.Images) > 0 {
				// As the Python freeact does for media a tool read: a user
				// prompt after the tool returns.
				items := []any{fmt.Sprintf("Media returned by %s:", r.Name)}
				for _, im := range r.Images {
					items = append(items, binaryItem(im))
				}
				media = append(media, obj{"part_kind": "user-prompt", "content": items})
			}
		case p.Image != nil:
			content = append(content, binaryItem(*p.Image))
		case !p.Thought:
			content = append(content, p.Text)
		}
	}
	if len(content) > 0 {
		var c any = content
		if s, ok := content[0].(string); ok && len(content) == 1 {
			c = s
		}
		parts = append(parts, obj{"part_kind": "user-prompt", "content": c})
	}
	parts = append(parts, media...)
	return json.Marshal(obj{"kind": "request", "parts": parts})
}

func binaryItem(im model.Image) obj {
	return obj{"kind": "binary", "data": base64.StdEncoding.EncodeToString(im.Data), "media_type": im.MIMEType}
}

func encodeResponse(m model.Message) (json.RawMessage, error) {
	provider, name := "", m.Model
	if prefix, rest, ok := strings.Cut(m.Model, ":"); ok {
		name = rest
		switch prefix {
		case "google":
			provider = "google-gla"
		default:
			provider = prefix
		}
	}
	var parts []obj
	for _, p := range m.Parts {
		var o obj
		switch {
		case p.FunctionCall != nil:
			var args any
			if err := json.Unmarshal(p.FunctionCall.Args, &args); err != nil {
				return nil, fmt.Errorf("encode pydantic-ai message: arguments of %s: %w", p.FunctionCall.Name, err)
			}
			o = obj{"part_kind": "tool-call", "tool_name": p.FunctionCall.Name, "args": args, "tool_call_id": p.FunctionCall.ID}
		case p.Thought:
			o = obj{"part_kind": "thinking", "content": p.Text}
		case p.Text != "" || len(p.Signature) > 0:
			o = obj{"part_kind": "text", "content": p.Text}
		default:
			continue
		}
		if len(p.Signature) > 0 {
			switch {
			case provider == "google-gla":
				o["provider_name"] = provider
				o["provider_details"] = obj{"thought_signature": base64.StdEncoding.EncodeToString(p.Signature)}
			case p.Thought:
				o["provider_name"] = provider
				o["signature"] = string(p.Signature)
			}
		}
		parts = append(parts, o)
	}
	out := obj{"kind": "response", "parts": parts, "model_name": name}
	if provider != "" {
		out["provider_name"] = provider
	}
	if u := m.Usage; u != nil {
		details := obj{}
		if u.ThinkingTokens > 0 {
			details["thoughts_tokens"] = u.ThinkingTokens
		}
		out["usage"] = obj{
			"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens + u.ThinkingTokens,
			"cache_read_tokens": u.CachedTokens, "details": details,
		}
	}
	if r, ok := finishReasons[m.Stop]; ok {
		out["finish_reason"] = r
	}
	return json.Marshal(out)
}

var finishReasons = map[model.StopReason]string{
	model.StopEnd: "stop", model.StopMaxTokens: "length", model.StopSafety: "content_filter", model.StopOther: "error",
}
