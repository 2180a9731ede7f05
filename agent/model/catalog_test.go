package model

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

func TestLookupFindsTheLongestListedName(t *testing.T) {
	tests := []struct {
		model  string
		window int
		input  float64
		ok     bool
	}{
		{"gemini-3-flash-preview", 1_048_576, 0.50, true},
		{"google-gla:gemini-2.5-flash", 1_048_576, 0.30, true},
		{"google:gemini-2.5-flash-lite", 1_048_576, 0.10, true},
		{"google:gemini-2.5-flash-preview-09-2025", 1_048_576, 0.30, true},
		{"openai:gpt-5", 272_000, 1.25, true},
		{"openai:gpt-5-mini-2025-08-07", 272_000, 0.25, true},
		{"openai:gpt-4o-mini", 128_000, 0.15, true},
		{"anthropic:claude-sonnet-4-5-20250929", 200_000, 3.00, true},
		{"anthropic:claude-opus-4-5", 200_000, 5.00, true},
		{"anthropic:claude-opus-4-20250514", 200_000, 15.00, true},
		{"openrouter:anthropic/claude-sonnet-4.5", 200_000, 3.00, true},
		{"openrouter:openai/gpt-4.1", 1_047_576, 2.00, true},
		// A name that only starts like a listed one is not that model.
		{"openai:gpt-5.9", 0, 0, false},
		{"ollama:qwen3", 0, 0, false},
		{"http://localhost:8000/v1#gpt-5", 0, 0, false},
	}
	for _, tt := range tests {
		info, ok := Lookup(tt.model, nil)
		if ok != tt.ok {
			t.Errorf("%s: ok = %v, want %v", tt.model, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		if info.ContextWindow != tt.window || info.Price == nil || info.Price.Input != tt.input {
			t.Errorf("%s: window %d, price %+v; want %d and input %v", tt.model, info.ContextWindow, info.Price, tt.window, tt.input)
		}
	}
}

func TestOverridesAddAndAdjustModels(t *testing.T) {
	ptr := func(v float64) *float64 { return &v }
	window := 32768
	overrides := map[string]Override{
		"ollama:qwen3":          {ContextWindow: &window},
		"my-model":              {ContextWindow: &window, InputPrice: ptr(1), OutputPrice: ptr(2)},
		"google:gemini-2.5-pro": {InputPrice: ptr(1.5)},
	}
	info, ok := Lookup("ollama:qwen3", overrides)
	if !ok || info.ContextWindow != window || info.Price != nil {
		t.Errorf("ollama:qwen3: %+v %v; want the window and no price", info, ok)
	}
	// Found by its bare name; thinking costs what output does, cached
	// input what input does, unless said otherwise.
	info, ok = Lookup("http://localhost:8000/v1#my-model", overrides)
	if !ok || *info.Price != (Price{Input: 1, Output: 2, Thinking: 2, Cached: 1}) {
		t.Errorf("my-model: %+v %v", info.Price, ok)
	}
	// A partial override keeps the catalog's other prices and drops its
	// long-context tier.
	info, _ = Lookup("gemini-2.5-pro", overrides)
	if *info.Price != (Price{Input: 1.5, Output: 10, Thinking: 10, Cached: 0.125}) || info.LongPrice != nil {
		t.Errorf("gemini-2.5-pro: %+v long %+v", info.Price, info.LongPrice)
	}
}

func TestCost(t *testing.T) {
	info, _ := Lookup("google:gemini-2.5-pro", nil)
	tests := []struct {
		u    Usage
		want float64
	}{
		{Usage{InputTokens: 100_000}, 0.125},
		{Usage{InputTokens: 100_000, CachedTokens: 100_000}, 0.0125},
		{Usage{OutputTokens: 1000, ThinkingTokens: 1000}, 0.02},
		// Above 200,000 input tokens the whole call is billed at the long
		// context price.
		{Usage{InputTokens: 400_000, OutputTokens: 1000}, 400_000*2.50/1e6 + 1000*15/1e6},
		// More cached than input is a provider's bookkeeping slip, not a
		// refund.
		{Usage{InputTokens: 10, CachedTokens: 20}, 10 * 0.125 / 1e6},
	}
	for _, tt := range tests {
		got, ok := info.Cost(tt.u)
		if !ok || math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Cost(%+v) = %v, %v; want %v", tt.u, got, ok, tt.want)
		}
	}
	if _, ok := (Info{ContextWindow: 100}).Cost(Usage{InputTokens: 1}); ok {
		t.Error("a model without a price has a cost")
	}
}

func TestOverrideValidate(t *testing.T) {
	neg, zero := -1.0, 0
	for _, o := range []Override{{InputPrice: &neg}, {ContextWindow: &zero}, {CachedPrice: func() *float64 { v := math.NaN(); return &v }()}, {CodeActions: "blocks"}} {
		if o.Validate() == nil {
			t.Errorf("%+v is valid", o)
		}
	}
	for _, v := range []string{"", CodeActionsTools, CodeActionsBlocks} {
		if err := (Override{CodeActions: v}).Validate(); err != nil {
			t.Errorf("code_actions %q: %v", v, err)
		}
	}
}

func TestIsContextOverflow(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&APIError{StatusCode: 400, Status: "invalid_request_error", Message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens."}, true},
		{&APIError{StatusCode: 400, Status: "invalid_request_error", Message: "prompt is too long: 208000 tokens > 200000 maximum"}, true},
		{&APIError{StatusCode: 400, Status: "INVALID_ARGUMENT", Message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."}, true},
		{&APIError{StatusCode: 413, Status: "request_too_large"}, true},
		{fmt.Errorf("call: %w", &APIError{StatusCode: 400, Message: "Input tokens exceed the configured limit of 272000 tokens."}), true},
		// llama.cpp (b6xxx), vLLM and Ollama.
		{&APIError{StatusCode: 400, Status: "exceed_context_size_error", Message: "the request exceeds the available context size, try increasing it", ContextWindow: 4096}, true},
		{&APIError{StatusCode: 400, Status: "BadRequestError", Message: "This model's maximum context length is 2048 tokens. However, you requested 2100 tokens (2000 in the messages, 100 in the completion)."}, true},
		{&APIError{StatusCode: 400, Message: `{"error":"the input length exceeds the context length"}`}, true},
		{&APIError{StatusCode: 400, Message: "invalid tool schema"}, false},
		{&APIError{StatusCode: 429, Message: "too many tokens per minute"}, false},
		{errors.New("connection reset"), false},
	}
	for _, tt := range tests {
		if got := IsContextOverflow(tt.err); got != tt.want {
			t.Errorf("IsContextOverflow(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestOverflowWindow(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{&APIError{StatusCode: 400, Status: "exceed_context_size_error", Message: "the request exceeds the available context size, try increasing it", ContextWindow: 4096}, 4096},
		{&APIError{StatusCode: 400, Message: "This model's maximum context length is 2048 tokens. However, you requested 2100 tokens."}, 2048},
		{fmt.Errorf("call: %w", &APIError{StatusCode: 400, Status: "INVALID_ARGUMENT", Message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."}), 1048576},
		{&APIError{StatusCode: 400, Message: "prompt is too long: 208000 tokens > 200000 maximum"}, 0},
		// A rate limit is no overflow, whatever numbers it names.
		{&APIError{StatusCode: 429, Message: "maximum context length is 4096 tokens"}, 0},
	}
	for _, tt := range tests {
		if got := OverflowWindow(tt.err); got != tt.want {
			t.Errorf("OverflowWindow(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}
