package failure_test

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/freeact/desktop/agent/failure"
	"github.com/freeact/desktop/agent/longsession"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/kernel/hub"
)

// Each kind of failure gets its own cause and words; the HTTP status of a
// provider's refusal is kept, and the fix names what to change.
func TestDescribeNamesTheCauseAndTheFix(t *testing.T) {
	spec, err := model.ParseModelString("openai:gpt-test")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name               string
		err                error
		cause              string
		status             int
		keyEnv             string
		summaryHas, fixHas string
	}{
		{"missing key", fmt.Errorf("open model: %w", &failure.MissingKeyError{Model: "openai:gpt-test", KeyEnv: "OPENAI_API_KEY", EnvFile: "/ws/.env"}),
			failure.CauseAPIKey, 0, "OPENAI_API_KEY", "No API key for openai:gpt-test", "Set OPENAI_API_KEY"},
		{"refused key", &model.APIError{StatusCode: 401, Message: "bad key"}, failure.CauseModel, 401, "", "refused the API key", "enter a valid key"},
		{"unknown model", &model.APIError{StatusCode: 404}, failure.CauseModel, 404, "", `does not know the model "gpt-test"`, "Check the model name"},
		{"rate limit", &model.APIError{StatusCode: 429}, failure.CauseModel, 429, "", "rate limit", "Wait a moment"},
		{"server error", &model.APIError{StatusCode: 503}, failure.CauseModel, 503, "", "server error (HTTP 503)", "provider's side"},
		{"session", &failure.SessionError{Err: errors.New("write session: disk full")}, failure.CauseSession, 0, "", "session file", "writable"},
		{"unreachable", fmt.Errorf("post: %w", syscall.ECONNREFUSED), failure.CauseModel, 0, "", "could not be reached (openai:gpt-test at http://localhost:9/v1)", "base URL"},
		{"dns", &net.DNSError{Err: "no such host", Name: "x.invalid"}, failure.CauseModel, 0, "", "could not be reached", "network"},
		{"stalled", fmt.Errorf("stream: %w", model.ErrStalled), failure.CauseModel, 0, "", "stopped answering", "Try again"},
		{"summary cut", &longsession.SummaryCutError{OutputTokens: 100}, failure.CauseModel, 0, "", "not compacted", "model_settings.max_tokens"},
		{"nothing to compact", longsession.ErrNothingToCompact, failure.CauseOther, 0, "", "nothing to compact", "Compact once"},
		{"other", errors.New("boom"), failure.CauseOther, 0, "", "The turn failed.", "Read the error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := failure.Describe(tt.err, spec, "http://localhost:9/v1")
			if f.Cause != tt.cause || f.Status != tt.status || f.KeyEnv != tt.keyEnv {
				t.Errorf("cause %q status %d key %q, want %q %d %q", f.Cause, f.Status, f.KeyEnv, tt.cause, tt.status, tt.keyEnv)
			}
			if f.Error != tt.err.Error() {
				t.Errorf("error %q, want %q", f.Error, tt.err.Error())
			}
			if !strings.Contains(f.Summary, tt.summaryHas) || !strings.Contains(f.Fix, tt.fixHas) {
				t.Errorf("summary %q / fix %q, want them to hold %q / %q", f.Summary, f.Fix, tt.summaryHas, tt.fixHas)
			}
		})
	}
}

// The secrets of URLs leave every text of the description, and the base
// URL it is told of loses its userinfo and query values.
func TestDescribeTakesSecretsOutOfURLs(t *testing.T) {
	spec, err := model.ParseModelString("openai:gpt-test")
	if err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == spec.BaseURLEnv {
			return "https://user:hunter2@llm.example/v1?key=sekrit/"
		}
		return ""
	}
	base := failure.BaseURL(spec, getenv)
	f := failure.Describe(fmt.Errorf("post https://user:hunter2@llm.example/v1?key=sekrit: %w", syscall.ECONNREFUSED), spec, base)
	for _, s := range []string{f.Error, f.Summary, f.Fix} {
		if strings.Contains(s, "hunter2") || strings.Contains(s, "sekrit") {
			t.Errorf("a secret is left in %q", s)
		}
	}
	if !strings.Contains(f.Summary, "llm.example") {
		t.Errorf("summary %q does not say where the model was called", f.Summary)
	}
}

// A start that failed says, for each step, what failed and how to fix it;
// its error text loses the secrets of URLs.
func TestStartErrorSaysWhatFailedAtEachStep(t *testing.T) {
	seen := map[string]bool{}
	for _, step := range []string{failure.StepPrompt, failure.StepModel, failure.StepSession, failure.StepSandbox, failure.StepPython, failure.StepServer, failure.StepKernel} {
		e := &failure.StartError{Step: step, Err: errors.New("connect to http://u:pw@host/?token=abc failed")}
		if e.Summary() == "" || e.Fix() == "" || seen[e.Summary()] {
			t.Errorf("step %s: summary %q fix %q, want its own words", step, e.Summary(), e.Fix())
		}
		seen[e.Summary()] = true
		if strings.Contains(e.Error(), "pw@") || strings.Contains(e.Error(), "abc") {
			t.Errorf("step %s: error %q keeps a secret", step, e.Error())
		}
	}
}

// A JupyterHub's refusal at the start says so and points to the sign-in
// in Settings → Kernel, not to jupyter_token; other server failures keep
// the step's words.
func TestStartErrorWordsForAHub(t *testing.T) {
	for _, tc := range []struct {
		err          error
		summary, fix string
	}{
		{fmt.Errorf("connect: %w", hub.ErrNoToken), "needs you to sign in", "Settings → Kernel"},
		{fmt.Errorf("connect: %w", hub.ErrToken), "refused the token", "Settings → Kernel"},
		{fmt.Errorf("connect: %w", hub.ErrScope), "lacks a scope", "Settings → Kernel"},
		{fmt.Errorf("connect: %w", hub.ErrSpawn), "could not start your server", "spawner's message"},
		{errors.New("connection refused"), "The Jupyter server did not start.", "jupyter_url and jupyter_token"},
	} {
		e := &failure.StartError{Step: failure.StepServer, Err: tc.err}
		if !strings.Contains(e.Summary(), tc.summary) || !strings.Contains(e.Fix(), tc.fix) {
			t.Errorf("%v: summary %q, fix %q; want %q, %q", tc.err, e.Summary(), e.Fix(), tc.summary, tc.fix)
		}
	}
}
