// Package gemini is the model.Backend for the Gemini API, built on
// google.golang.org/genai: streaming, thinking with thoughts included,
// function calling with thought signatures, images and usage.
package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"os"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/freeact/desktop/agent/model"
)

// Config says which Gemini model to use and how to reach it.
type Config struct {
	Model    string // e.g. "gemini-3-flash-preview"
	Settings model.Settings
	// APIKey overrides GOOGLE_API_KEY / GEMINI_API_KEY.
	APIKey string
	// BaseURL overrides GOOGLE_GEMINI_BASE_URL and the public endpoint.
	BaseURL    string
	HTTPClient *http.Client // nil: a default client
}

// Backend streams from the Gemini API. Wrap it with model.New.
type Backend struct {
	client   *genai.Client
	name     string
	settings model.Settings
}

// New makes a Gemini backend. Without an API key in cfg or the environment
// it returns an error naming the variables to set.
func New(ctx context.Context, cfg Config) (*Backend, error) {
	key := cfg.APIKey
	if key == "" {
		key = firstEnv("GOOGLE_API_KEY", "GEMINI_API_KEY")
	}
	if key == "" {
		return nil, errors.New("no Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) in the environment; get a key at https://aistudio.google.com/apikey")
	}
	if cfg.Model == "" {
		return nil, errors.New("gemini: empty model name")
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:      key,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  cfg.HTTPClient,
		HTTPOptions: genai.HTTPOptions{BaseURL: cfg.BaseURL},
	})
	if err != nil {
		return nil, fmt.Errorf("create Gemini client: %w", err)
	}
	return &Backend{client: client, name: strings.TrimPrefix(cfg.Model, "models/"), settings: cfg.Settings}, nil
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// Name returns "google:<model>".
func (b *Backend) Name() string { return "google:" + b.name }

// StreamOnce sends one streaming request (streamGenerateContent with SSE).
func (b *Backend) StreamOnce(ctx context.Context, req *model.Request) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		contents := b.contents(req.Messages)
		cfg, err := b.config(req)
		if err != nil {
			yield(nil, fmt.Errorf("%s: %w", b.Name(), err))
			return
		}
		for resp, err := range b.client.Models.GenerateContentStream(ctx, b.name, contents, cfg) {
			if err != nil {
				yield(nil, b.wrapErr(err))
				return
			}
			if fb := resp.PromptFeedback; fb != nil && fb.BlockReason != "" {
				msg := fmt.Sprintf("the prompt was blocked (%s)", fb.BlockReason)
				if fb.BlockReasonMessage != "" {
					msg += ": " + fb.BlockReasonMessage
				}
				yield(nil, fmt.Errorf("%s: %s", b.Name(), msg))
				return
			}
			for _, c := range responseChunks(resp) {
				if !yield(c, nil) {
					return
				}
			}
		}
	}
}

// responseChunks turns one streamed response into chunks.
func responseChunks(resp *genai.GenerateContentResponse) []model.Chunk {
	var out []model.Chunk
	if len(resp.Candidates) > 0 && resp.Candidates[0] != nil {
		cand := resp.Candidates[0]
		if cand.Content != nil {
			for _, p := range cand.Content.Parts {
				if c := partChunk(p); c != nil {
					out = append(out, c)
				}
			}
		}
		if cand.FinishReason != "" && cand.FinishReason != genai.FinishReasonUnspecified {
			out = append(out, model.Finish{Reason: stopReason(cand.FinishReason)})
		}
	}
	if u := resp.UsageMetadata; u != nil {
		out = append(out, model.UsageChunk{Usage: model.Usage{
			InputTokens:    int(u.PromptTokenCount + u.ToolUsePromptTokenCount),
			OutputTokens:   int(u.CandidatesTokenCount),
			ThinkingTokens: int(u.ThoughtsTokenCount),
			CachedTokens:   int(u.CachedContentTokenCount),
		}})
	}
	return out
}

func partChunk(p *genai.Part) model.Chunk {
	switch {
	case p == nil:
		return nil
	case p.FunctionCall != nil:
		args, err := json.Marshal(p.FunctionCall.Args)
		if err != nil || p.FunctionCall.Args == nil {
			args = []byte(`{}`)
		}
		return model.FunctionCallChunk{
			Call:      model.FunctionCall{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Args: args},
			Signature: p.ThoughtSignature,
		}
	case p.Thought:
		return model.ThoughtDelta{Text: p.Text, Signature: p.ThoughtSignature}
	case p.Text != "" || len(p.ThoughtSignature) > 0:
		return model.TextDelta{Text: p.Text, Signature: p.ThoughtSignature}
	}
	return nil // parts we do not ask for (inline data, executable code, ...)
}

func stopReason(r genai.FinishReason) model.StopReason {
	switch r {
	case genai.FinishReasonStop:
		return model.StopEnd
	case genai.FinishReasonMaxTokens:
		return model.StopMaxTokens
	case genai.FinishReasonSafety, genai.FinishReasonProhibitedContent, genai.FinishReasonBlocklist,
		genai.FinishReasonSPII, genai.FinishReasonRecitation:
		return model.StopSafety
	}
	return model.StopOther
}

// wrapErr turns genai's API errors into *model.APIError so that retries can
// tell transient ones apart.
func (b *Backend) wrapErr(err error) error {
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		return &model.APIError{
			Model:      b.Name(),
			StatusCode: apiErr.Code,
			Status:     apiErr.Status,
			Message:    apiErr.Message,
			RetryAfter: retryDelay(apiErr.Details),
		}
	}
	return fmt.Errorf("%s: %w", b.Name(), err)
}

// retryDelay reads the google.rpc.RetryInfo detail of a 429 response.
func retryDelay(details []map[string]any) time.Duration {
	for _, d := range details {
		if t, _ := d["@type"].(string); strings.HasSuffix(t, "google.rpc.RetryInfo") {
			if s, ok := d["retryDelay"].(string); ok {
				if dur, err := time.ParseDuration(s); err == nil {
					return dur
				}
			}
		}
	}
	return 0
}

// config builds the generation config from the settings and the request.
func (b *Backend) config(req *model.Request) (*genai.GenerateContentConfig, error) {
	s := b.settings
	cfg := &genai.GenerateContentConfig{
		StopSequences:    s.StopSequences,
		Temperature:      f32(s.Temperature),
		TopP:             f32(s.TopP),
		PresencePenalty:  f32(s.PresencePenalty),
		FrequencyPenalty: f32(s.FrequencyPenalty),
	}
	if s.MaxTokens != nil {
		cfg.MaxOutputTokens = int32(*s.MaxTokens)
	}
	if s.Seed != nil {
		seed := int32(*s.Seed)
		cfg.Seed = &seed
	}
	if req.System != "" {
		cfg.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: req.System}}}
	}
	if len(req.Tools) > 0 {
		decls := make([]*genai.FunctionDeclaration, len(req.Tools))
		for i, t := range req.Tools {
			d := &genai.FunctionDeclaration{Name: t.Name, Description: t.Description}
			if len(t.Parameters) > 0 {
				var schema any
				if err := json.Unmarshal(t.Parameters, &schema); err != nil {
					return nil, fmt.Errorf("tool %s: parameters are not JSON: %w", t.Name, err)
				}
				d.ParametersJsonSchema = schema
			}
			decls[i] = d
		}
		cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	if g := s.GoogleThinking; g != nil {
		tc := &genai.ThinkingConfig{}
		if g.IncludeThoughts != nil {
			tc.IncludeThoughts = *g.IncludeThoughts
		}
		if g.ThinkingBudget != nil {
			budget := int32(*g.ThinkingBudget)
			tc.ThinkingBudget = &budget
		}
		if g.ThinkingLevel != "" {
			if b.older() {
				// Gemini 2.x and older know budgets, not levels: think as
				// much as the model sees fit.
				if tc.ThinkingBudget == nil {
					dynamic := int32(-1)
					tc.ThinkingBudget = &dynamic
				}
			} else {
				tc.ThinkingLevel = genai.ThinkingLevel(strings.ToUpper(g.ThinkingLevel))
			}
		}
		cfg.ThinkingConfig = tc
	}
	return cfg, nil
}

// AcceptsMedia: Gemini reads images, PDFs, audio and video inline.
func (b *Backend) AcceptsMedia(mimeType string) bool {
	return model.IsImage(mimeType) || mimeType == "application/pdf" ||
		strings.HasPrefix(mimeType, "audio/") || strings.HasPrefix(mimeType, "video/")
}

// older reports whether the model predates Gemini 3 (no thinking levels, no
// multimodal function responses, no thought signature checks).
func (b *Backend) older() bool {
	return strings.HasPrefix(b.name, "gemini-1") || strings.HasPrefix(b.name, "gemini-2")
}

func f32(p *float64) *float32 {
	if p == nil {
		return nil
	}
	v := float32(*p)
	return &v
}

// placeholdSignature gives the first function call of a model turn the
// placeholder signature when none of its calls has one. Gemini 3 requires a
// signature on the first call of each step and signs only that one itself,
// so turns it made are left alone.
func placeholdSignature(parts []*genai.Part) {
	var first *genai.Part
	for _, p := range parts {
		if p.FunctionCall == nil {
			continue
		}
		if len(p.ThoughtSignature) > 0 {
			return
		}
		if first == nil {
			first = p
		}
	}
	if first != nil {
		first.ThoughtSignature = skipSignature
	}
}

// skipSignature is the placeholder Gemini 3 accepts in place of a thought
// signature on a function call it did not make itself (a history from
// another model, for example).
var skipSignature = []byte("skip_thought_signature_validator")

// contents converts our messages to Gemini's.
func (b *Backend) contents(msgs []model.Message) []*genai.Content {
	out := make([]*genai.Content, 0, len(msgs))
	for _, m := range msgs {
		c := &genai.Content{Role: string(m.Role)}
		var trailing []*genai.Part // images of function responses for older models
		// Signatures are only valid for the provider that made them.
		foreign := m.Model != "" && !strings.HasPrefix(m.Model, "google:")
		for _, p := range m.Parts {
			if foreign {
				p.Signature = nil
			}
			gp, extra := b.part(p)
			if gp != nil {
				c.Parts = append(c.Parts, gp)
			}
			trailing = append(trailing, extra...)
		}
		c.Parts = append(c.Parts, trailing...)
		if m.Role == model.RoleModel && !b.older() {
			placeholdSignature(c.Parts)
		}
		if len(c.Parts) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// part converts one part; images of a function response come back separately
// for models that cannot take them inside the response.
func (b *Backend) part(p model.Part) (*genai.Part, []*genai.Part) {
	switch {
	case p.Image != nil:
		return &genai.Part{InlineData: &genai.Blob{MIMEType: p.Image.MIMEType, Data: p.Image.Data}}, nil
	case p.FunctionCall != nil:
		fc := p.FunctionCall
		args := map[string]any{}
		if err := json.Unmarshal(fc.Args, &args); err != nil {
			// Arguments that were not a JSON object go back as the model wrote them.
			var raw string
			if json.Unmarshal(fc.Args, &raw) != nil {
				raw = string(fc.Args)
			}
			args = map[string]any{"arguments": raw}
		}
		id := fc.ID
		if strings.HasPrefix(id, model.CallIDPrefix) {
			id = "" // ours, not Gemini's
		}
		return &genai.Part{FunctionCall: &genai.FunctionCall{ID: id, Name: fc.Name, Args: args}, ThoughtSignature: p.Signature}, nil
	case p.FunctionResponse != nil:
		fr := p.FunctionResponse
		key := "output"
		if fr.IsError {
			key = "error"
		}
		id := fr.ID
		if strings.HasPrefix(id, model.CallIDPrefix) {
			id = ""
		}
		gfr := &genai.FunctionResponse{ID: id, Name: fr.Name, Response: map[string]any{key: fr.Output}}
		var extra []*genai.Part
		for _, img := range fr.Images {
			// Function responses carry images; other media (PDFs, audio,
			// video) go as parts of their own beside them.
			if b.older() || !model.IsImage(img.MIMEType) {
				extra = append(extra, &genai.Part{InlineData: &genai.Blob{MIMEType: img.MIMEType, Data: img.Data}})
			} else {
				gfr.Parts = append(gfr.Parts, &genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{MIMEType: img.MIMEType, Data: img.Data}})
			}
		}
		return &genai.Part{FunctionResponse: gfr}, extra
	case p.Text == "" && len(p.Signature) == 0:
		return nil, nil // empty text: Gemini rejects it
	default:
		return &genai.Part{Text: p.Text, Thought: p.Thought, ThoughtSignature: p.Signature}, nil
	}
}
