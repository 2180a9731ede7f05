package adapter

import (
	"testing"

	"github.com/freeact/desktop/agent"
)

func TestFailureAdviceJoinsSummaryAndFix(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   agent.Failed
		want string
	}{
		{"no summary: nothing to add to the error", agent.Failed{Error: "boom", Fix: "ignored"}, ""},
		{"summary only", agent.Failed{Error: "boom", Summary: "The model failed."}, "The model failed."},
		{"summary and fix", agent.Failed{Error: "boom", Summary: "No key.", Fix: "Set GEMINI_API_KEY."}, "No key. Set GEMINI_API_KEY."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FailureAdvice(&tc.in); got != tc.want {
				t.Errorf("FailureAdvice = %q, want %q", got, tc.want)
			}
		})
	}
}
