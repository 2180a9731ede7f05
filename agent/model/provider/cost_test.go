package provider_test

import (
	"math"
	"testing"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/agent/model/provider"
)

// Each provider reports the same call (10,000 input tokens of which 4,000
// from the cache, 2,000 output, 500 thinking) in its own usage shape; the
// client's Usage priced by the catalog must come to the provider's bill.
func TestCostOfEachProvidersUsageShape(t *testing.T) {
	tests := []struct {
		name, model string
		use         func(t testing.TB, sc modeltest.Scenario) *modeltest.Server
		want        model.Usage
		cost        float64
	}{
		{
			// promptTokenCount includes cachedContentTokenCount; thoughts
			// apart. gemini-2.5-pro: $1.25 in, $10 out, $0.125 cached.
			name: "gemini", model: "google:gemini-2.5-pro", use: modeltest.UseGemini,
			want: model.Usage{InputTokens: 10000, OutputTokens: 2000, ThinkingTokens: 500, CachedTokens: 4000},
			cost: (6000*1.25 + 4000*0.125 + 2000*10 + 500*10) / 1e6,
		},
		{
			// prompt_tokens includes cached_tokens; completion_tokens
			// includes reasoning_tokens. gpt-5: $1.25, $10, $0.125.
			name: "openai", model: "openai:gpt-5", use: modeltest.UseOpenAI,
			want: model.Usage{InputTokens: 10000, OutputTokens: 2000, ThinkingTokens: 500, CachedTokens: 4000},
			cost: (6000*1.25 + 4000*0.125 + 2000*10 + 500*10) / 1e6,
		},
		{
			// input_tokens excludes cache_read_input_tokens; thinking is
			// inside output_tokens. claude-sonnet-4-5: $3, $15, $0.30.
			name: "anthropic", model: "anthropic:claude-sonnet-4-5-20250929", use: modeltest.UseAnthropic,
			want: model.Usage{InputTokens: 10000, OutputTokens: 2500, CachedTokens: 4000},
			cost: (6000*3 + 4000*0.30 + 2500*15) / 1e6,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.use(t, modeltest.LoadScenario(t, "testdata/usage.yaml"))
			m, err := provider.New(t.Context(), tt.model, provider.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got *model.Usage
			for c, err := range m.Stream(t.Context(), &model.Request{Messages: []model.Message{model.UserText("count")}}) {
				if err != nil {
					t.Fatal(err)
				}
				if d, ok := c.(model.Done); ok {
					got = d.Message.Usage
				}
			}
			if got == nil || *got != tt.want {
				t.Fatalf("usage = %+v, want %+v", got, tt.want)
			}
			info, ok := model.Lookup(tt.model, nil)
			if !ok {
				t.Fatalf("%s is not in the catalog", tt.model)
			}
			cost, ok := info.Cost(*got)
			if !ok || math.Abs(cost-tt.cost) > 1e-12 {
				t.Errorf("cost = %v (priced %v), want %v", cost, ok, tt.cost)
			}
		})
	}
}
