package model

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Price is what a provider charges for a model, in US dollars per million
// tokens. Thinking is what thinking (reasoning) tokens cost, Cached what
// input tokens read from the provider's prompt cache cost.
type Price struct {
	Input    float64 `json:"input"`
	Output   float64 `json:"output"`
	Thinking float64 `json:"thinking"`
	Cached   float64 `json:"cached"`
}

// Info is what the project knows about a model: how many input tokens one
// request may carry and what tokens cost.
type Info struct {
	// ContextWindow is the most input tokens one request may carry; 0 when
	// unknown.
	ContextWindow int
	// Price is nil when unknown (local and unlisted models).
	Price *Price
	// LongAbove, when not 0, is the input size (tokens) above which a call
	// is billed at LongPrice instead (Gemini's Pro models).
	LongAbove int
	LongPrice *Price
}

// Cost returns what the call counted by u cost in US dollars; ok is false
// when the price is unknown. Cached input tokens (counted in InputTokens)
// are billed at the cached price, the rest of the input at the input price.
func (i Info) Cost(u Usage) (cost float64, ok bool) {
	p := i.Price
	if i.LongAbove > 0 && i.LongPrice != nil && u.InputTokens > i.LongAbove {
		p = i.LongPrice
	}
	if p == nil {
		return 0, false
	}
	cached := min(max(u.CachedTokens, 0), max(u.InputTokens, 0))
	uncached := max(u.InputTokens-cached, 0)
	c := float64(uncached)*p.Input + float64(cached)*p.Cached +
		float64(max(u.OutputTokens, 0))*p.Output + float64(max(u.ThinkingTokens, 0))*p.Thinking
	return c / 1e6, true
}

// Override adjusts or adds a model's entry: the "models" of agent.json, for
// custom and local models and for prices that changed. Fields left out keep
// the catalog's values. Prices are US dollars per million tokens.
type Override struct {
	ContextWindow *int     `json:"context_window,omitempty"`
	InputPrice    *float64 `json:"input_price,omitempty"`
	OutputPrice   *float64 `json:"output_price,omitempty"`
	// ThinkingPrice defaults to the output price, as every listed provider
	// bills thinking as output.
	ThinkingPrice *float64 `json:"thinking_price,omitempty"`
	// CachedPrice defaults to the input price.
	CachedPrice *float64 `json:"cached_price,omitempty"`
	// CodeActions says how the model writes code actions: CodeActionsTools
	// or CodeActionsBlocks; empty asks a local server (auto).
	CodeActions string `json:"code_actions,omitempty"`
}

// The values of Override.CodeActions.
const (
	// CodeActionsTools: code actions are tool calls.
	CodeActionsTools = "tool_calls"
	// CodeActionsBlocks: code actions are fenced python blocks in the
	// reply, for models without tool calling.
	CodeActionsBlocks = "code_blocks"
)

// Validate reports a value that cannot be right.
func (o Override) Validate() error {
	if o.CodeActions != "" && o.CodeActions != CodeActionsTools && o.CodeActions != CodeActionsBlocks {
		return fmt.Errorf("code_actions %q: want %q, %q, or leave it out to ask the server", o.CodeActions, CodeActionsTools, CodeActionsBlocks)
	}
	if o.ContextWindow != nil && *o.ContextWindow < 1 {
		return fmt.Errorf("context_window %d: want a positive number of tokens", *o.ContextWindow)
	}
	for _, p := range []struct {
		name string
		v    *float64
	}{{"input_price", o.InputPrice}, {"output_price", o.OutputPrice}, {"thinking_price", o.ThinkingPrice}, {"cached_price", o.CachedPrice}} {
		if p.v != nil && (*p.v < 0 || math.IsNaN(*p.v) || math.IsInf(*p.v, 0)) {
			return fmt.Errorf("%s %v: want US dollars per million tokens, 0 or more", p.name, *p.v)
		}
	}
	return nil
}

// apply lays o over i. A price given in part is completed from the
// catalog's; for a model the catalog does not price, thinking costs what
// output does and cached input what input does unless given.
func (o Override) apply(i Info) Info {
	if o.ContextWindow != nil {
		i.ContextWindow = *o.ContextWindow
	}
	if o.InputPrice == nil && o.OutputPrice == nil && o.ThinkingPrice == nil && o.CachedPrice == nil {
		return i
	}
	var p Price
	if i.Price != nil {
		p = *i.Price
	}
	set := func(dst *float64, v *float64) {
		if v != nil {
			*dst = *v
		}
	}
	set(&p.Input, o.InputPrice)
	set(&p.Output, o.OutputPrice)
	if i.Price == nil {
		p.Thinking, p.Cached = p.Output, p.Input
	}
	set(&p.Thinking, o.ThinkingPrice)
	set(&p.Cached, o.CachedPrice)
	i.Price = &p
	// A price given by the user replaces the catalog's tiers.
	i.LongAbove, i.LongPrice = 0, nil
	return i
}

// Lookup returns what is known of the model named by the model string s
// (as in agent.json): the catalog's entry, with overrides laid over it. An
// override is found under the model string as written, its canonical form
// ("google:gemini-2.5-pro") or the bare model name. ok is false when
// neither the catalog nor the overrides know the model.
func Lookup(s string, overrides map[string]Override) (info Info, ok bool) {
	spec, err := ParseModelString(s)
	if err != nil {
		return Info{}, false
	}
	info, ok = catalogEntry(spec)
	if o, found := FindOverride(s, overrides); found {
		return o.apply(info), true
	}
	return info, ok
}

// FindOverride returns the override of the model string s: the one under
// s as written, its canonical form or the bare model name.
func FindOverride(s string, overrides map[string]Override) (Override, bool) {
	spec, err := ParseModelString(s)
	if err != nil {
		return Override{}, false
	}
	for _, k := range []string{s, spec.String(), spec.Name} {
		if o, found := overrides[k]; found {
			return o, true
		}
	}
	return Override{}, false
}

// catalogEntry finds the catalog's entry for spec: the longest listed name
// that is the model's name or a prefix of it ending before a "-" (a dated
// or variant name: claude-sonnet-4-5-20250929, gpt-4o-2024-08-06).
// OpenRouter's "vendor/name" names are looked up under the vendor.
func catalogEntry(spec Spec) (Info, bool) {
	provider, name := spec.Provider, spec.Name
	if provider == "openrouter" {
		vendor, rest, ok := strings.Cut(name, "/")
		if !ok {
			return Info{}, false
		}
		provider, name = vendor, rest
		if provider == "anthropic" {
			name = strings.ReplaceAll(name, ".", "-") // claude-sonnet-4.5
		}
	}
	name = strings.TrimPrefix(name, "models/") // Gemini's resource names
	best, bestLen := Info{}, -1
	for _, e := range catalog {
		if e.provider != provider || len(e.name) <= bestLen {
			continue
		}
		if name == e.name || strings.HasPrefix(name, e.name+"-") {
			best, bestLen = e.info(), len(e.name)
		}
	}
	return best, bestLen >= 0
}

// entry is one row of the catalog. Prices are US dollars per million
// tokens; thinking is billed as output by every provider listed.
type entry struct {
	provider, name        string
	window                int
	input, output, cached float64
	// long holds input, output and cached prices above longAbove tokens.
	longAbove int
	long      [3]float64
}

func (e entry) info() Info {
	i := Info{ContextWindow: e.window, Price: &Price{Input: e.input, Output: e.output, Thinking: e.output, Cached: e.cached}}
	if e.longAbove > 0 {
		i.LongAbove = e.longAbove
		i.LongPrice = &Price{Input: e.long[0], Output: e.long[1], Thinking: e.long[1], Cached: e.long[2]}
	}
	return i
}

// CatalogChecked is when the prices below were last compared with the
// providers' price lists. Prices change: "models" in agent.json overrides
// them.
const CatalogChecked = "2026-11"

// catalog holds the current models of the providers the app supports. The
// window is the most input tokens a request may carry (for OpenAI's GPT-5
// family, 272,000 of its 400,000 tokens; the rest is for output).
var catalog = []entry{
	// Gemini API (google:, and bare names).
	{provider: "google", name: "gemini-3-pro-preview", window: 1_048_576, input: 2.00, output: 12.00, cached: 0.20, longAbove: 200_000, long: [3]float64{4.00, 18.00, 0.40}},
	{provider: "google", name: "gemini-3-flash-preview", window: 1_048_576, input: 0.50, output: 3.00, cached: 0.05},
	{provider: "google", name: "gemini-2.5-pro", window: 1_048_576, input: 1.25, output: 10.00, cached: 0.125, longAbove: 200_000, long: [3]float64{2.50, 15.00, 0.25}},
	{provider: "google", name: "gemini-2.5-flash", window: 1_048_576, input: 0.30, output: 2.50, cached: 0.03},
	{provider: "google", name: "gemini-2.5-flash-lite", window: 1_048_576, input: 0.10, output: 0.40, cached: 0.01},
	{provider: "google", name: "gemini-2.0-flash", window: 1_048_576, input: 0.10, output: 0.40, cached: 0.025},
	{provider: "google", name: "gemini-2.0-flash-lite", window: 1_048_576, input: 0.075, output: 0.30, cached: 0.075},

	// OpenAI.
	{provider: "openai", name: "gpt-5.1", window: 272_000, input: 1.25, output: 10.00, cached: 0.125},
	{provider: "openai", name: "gpt-5", window: 272_000, input: 1.25, output: 10.00, cached: 0.125},
	{provider: "openai", name: "gpt-5-mini", window: 272_000, input: 0.25, output: 2.00, cached: 0.025},
	{provider: "openai", name: "gpt-5-nano", window: 272_000, input: 0.05, output: 0.40, cached: 0.005},
	{provider: "openai", name: "gpt-4.1", window: 1_047_576, input: 2.00, output: 8.00, cached: 0.50},
	{provider: "openai", name: "gpt-4.1-mini", window: 1_047_576, input: 0.40, output: 1.60, cached: 0.10},
	{provider: "openai", name: "gpt-4.1-nano", window: 1_047_576, input: 0.10, output: 0.40, cached: 0.025},
	{provider: "openai", name: "gpt-4o", window: 128_000, input: 2.50, output: 10.00, cached: 1.25},
	{provider: "openai", name: "gpt-4o-mini", window: 128_000, input: 0.15, output: 0.60, cached: 0.075},
	{provider: "openai", name: "o3", window: 200_000, input: 2.00, output: 8.00, cached: 0.50},
	{provider: "openai", name: "o4-mini", window: 200_000, input: 1.10, output: 4.40, cached: 0.275},

	// Anthropic. Claude reports thinking inside its output tokens.
	{provider: "anthropic", name: "claude-opus-4-5", window: 200_000, input: 5.00, output: 25.00, cached: 0.50},
	{provider: "anthropic", name: "claude-opus-4-1", window: 200_000, input: 15.00, output: 75.00, cached: 1.50},
	{provider: "anthropic", name: "claude-opus-4", window: 200_000, input: 15.00, output: 75.00, cached: 1.50},
	{provider: "anthropic", name: "claude-sonnet-4-5", window: 200_000, input: 3.00, output: 15.00, cached: 0.30},
	{provider: "anthropic", name: "claude-sonnet-4", window: 200_000, input: 3.00, output: 15.00, cached: 0.30},
	{provider: "anthropic", name: "claude-3-7-sonnet", window: 200_000, input: 3.00, output: 15.00, cached: 0.30},
	{provider: "anthropic", name: "claude-haiku-4-5", window: 200_000, input: 1.00, output: 5.00, cached: 0.10},
	{provider: "anthropic", name: "claude-3-5-haiku", window: 200_000, input: 0.80, output: 4.00, cached: 0.08},
}

// ErrContextOverflow marks a provider's refusal of a request that is larger
// than the model's context window.
var ErrContextOverflow = errors.New("the request is larger than the model's context window")

// IsContextOverflow reports whether err is a provider's refusal of a
// request too large for the model's context window: OpenAI's
// context_length_exceeded, Claude's "prompt is too long", Gemini's "input
// token count ... exceeds the maximum", HTTP 413, and the wording of the
// common local servers: llama.cpp's exceed_context_size_error, vLLM's
// "maximum context length is", Ollama's "exceeds the context length".
func IsContextOverflow(err error) bool {
	if errors.Is(err, ErrContextOverflow) {
		return true
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	if apiErr.StatusCode == 413 {
		return true
	}
	if apiErr.StatusCode != 400 && apiErr.StatusCode != 422 && apiErr.StatusCode != 500 {
		return false
	}
	text := strings.ToLower(apiErr.Status + " " + apiErr.Message)
	for _, s := range []string{
		"context_length_exceeded", "maximum context length", "context length", "context window",
		"exceed_context_size", "context size",
		"prompt is too long", "input is too long", "too many tokens", "exceeds the maximum number of tokens",
		"input token count", "tokens exceed", "exceeds the context", "request_too_large",
	} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// windowWords find the window in the text of an overflow error: OpenAI and
// vLLM ("maximum context length is 4096 tokens"), Gemini ("exceeds the
// maximum number of tokens allowed (1048576)"), llama.cpp's message
// ("context size (4096)").
var windowWords = regexp.MustCompile(`(?i)(?:maximum context length is|maximum number of tokens allowed \(|context size \(|context length of|n_ctx[": =]+)\s*(\d{3,9})`)

// OverflowWindow returns the context window a context overflow error
// names, from a field of the error (llama.cpp's n_ctx) or its text; 0
// when it names none.
func OverflowWindow(err error) int {
	var apiErr *APIError
	if !IsContextOverflow(err) || !errors.As(err, &apiErr) {
		return 0
	}
	if apiErr.ContextWindow > 0 {
		return apiErr.ContextWindow
	}
	if m := windowWords.FindStringSubmatch(apiErr.Message); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// CatalogModels are the names of provider's models in the catalog, in its
// order (newest first): the models a front end offers to switch to
// without a key of another provider.
func CatalogModels(provider string) []string {
	var out []string
	for _, e := range catalog {
		if e.provider == provider {
			out = append(out, e.name)
		}
	}
	return out
}
