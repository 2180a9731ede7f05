package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/internal/sse"
)

// streamChunk is one chat.completion.chunk event.
type streamChunk struct {
	Choices []struct {
		Delta struct {
			Content *string `json:"content"`
			// Reasoning text: reasoning_content (DeepSeek, vLLM, LM Studio)
			// or reasoning (Ollama, OpenRouter).
			ReasoningContent *string `json:"reasoning_content"`
			Reasoning        *string `json:"reasoning"`
			ToolCalls        []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens            int `json:"prompt_tokens"`
		CompletionTokens        int `json:"completion_tokens"`
		CompletionTokensDetails *struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error *sse.WireError `json:"error"`
}

// pendingCall is a tool call whose arguments are still arriving.
type pendingCall struct {
	index int
	id    string
	name  string
	args  bytes.Buffer
}

// readStream parses a chat completions SSE body into chunks. Text and
// reasoning pass through as they come; tool calls are assembled and yielded
// when the choice finishes or the stream ends.
func readStream(body io.Reader) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		var calls []*pendingCall
		finished := false
		// cut is set when the reply ended at max_tokens: a call without
		// any argument text was cut before it, not made without arguments.
		flushCalls := func(cut bool) bool {
			for _, c := range calls {
				args := model.ArgsJSON(c.args.Bytes())
				if cut && len(bytes.TrimSpace(c.args.Bytes())) == 0 {
					args = json.RawMessage(`""`)
				}
				call := model.FunctionCall{ID: c.id, Name: c.name, Args: args}
				if !yield(model.FunctionCallChunk{Call: call}, nil) {
					return false
				}
			}
			calls = nil
			return true
		}
		for ev, err := range sse.Read(body) {
			if err != nil {
				yield(nil, err)
				return
			}
			if string(bytes.TrimSpace(ev.Data)) == "[DONE]" {
				finished = true
				break
			}
			var ch streamChunk
			if err := json.Unmarshal(ev.Data, &ch); err != nil {
				yield(nil, fmt.Errorf("malformed stream event %.200q: %w", ev.Data, err))
				return
			}
			if ch.Error != nil {
				yield(nil, &model.APIError{StatusCode: 500, Status: ch.Error.Type, Message: ch.Error.Message})
				return
			}
			for _, choice := range ch.Choices {
				d := choice.Delta
				for _, r := range []*string{d.ReasoningContent, d.Reasoning} {
					if r != nil && *r != "" && !yield(model.ThoughtDelta{Text: *r}, nil) {
						return
					}
				}
				if d.Content != nil && *d.Content != "" && !yield(model.TextDelta{Text: *d.Content}, nil) {
					return
				}
				for _, tc := range d.ToolCalls {
					calls = addCallDelta(calls, tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments)
				}
				if choice.FinishReason != nil && *choice.FinishReason != "" {
					reason := stopReason(*choice.FinishReason)
					if !flushCalls(reason == model.StopMaxTokens) || !yield(model.Finish{Reason: reason}, nil) {
						return
					}
					finished = true
				}
			}
			if u := ch.Usage; u != nil {
				usage := model.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
				if u.CompletionTokensDetails != nil {
					usage.ThinkingTokens = u.CompletionTokensDetails.ReasoningTokens
					usage.OutputTokens -= usage.ThinkingTokens
				}
				if u.PromptTokensDetails != nil {
					usage.CachedTokens = u.PromptTokensDetails.CachedTokens
				}
				if !yield(model.UsageChunk{Usage: usage}, nil) {
					return
				}
			}
		}
		if !finished {
			yield(nil, fmt.Errorf("stream ended before the response was complete: %w", io.ErrUnexpectedEOF))
			return
		}
		// [DONE] without a finish reason: the Model reports the stream as
		// incomplete (model.ErrIncomplete).
		flushCalls(false)
	}
}

// addCallDelta merges a tool call fragment. Fragments are keyed by index;
// servers that send no index send each call whole, with its own id.
func addCallDelta(calls []*pendingCall, index *int, id, name, args string) []*pendingCall {
	var c *pendingCall
	if index != nil {
		for _, p := range calls {
			if p.index == *index && (id == "" || p.id == "" || p.id == id) {
				c = p
			}
		}
	} else if n := len(calls); n > 0 && id == "" {
		c = calls[n-1]
	}
	if c == nil {
		c = &pendingCall{index: len(calls)}
		if index != nil {
			c.index = *index
		}
		calls = append(calls, c)
	}
	if id != "" {
		c.id = id
	}
	if c.name == "" {
		c.name = name
	}
	c.args.WriteString(args)
	return calls
}

func stopReason(r string) model.StopReason {
	switch r {
	case "stop", "tool_calls", "function_call":
		return model.StopEnd
	case "length":
		return model.StopMaxTokens
	case "content_filter":
		return model.StopSafety
	}
	return model.StopOther
}
