// Package failure says how a failed turn or start is described: the cause
// of a Failed event, a summary in plain words and what fixes it, with the
// secrets of URLs taken out. It is pure: it reads only the error and what
// the caller says of the model.
package failure

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/longsession"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/internal/redact"
	"github.com/freeact/desktop/kernel/hub"
)

// Causes of a failed turn (Failed.Cause): what failed, so that a front end
// can offer the fix in place.
const (
	// CauseAPIKey: no API key for the model's provider (Failed.KeyEnv
	// names the variable). Setting it and trying again fixes it.
	CauseAPIKey = "api_key"
	// CauseModel: the provider refused the request or could not be
	// reached (Failed.Status is its HTTP status, 0 when not reached).
	CauseModel = "model"
	// CauseSession: the session file could not be written.
	CauseSession = "session"
	// CauseOther: anything else; Summary and Fix still say what to do.
	CauseOther = "other"
)

// MissingKeyError says that no API key was found for the model's provider.
type MissingKeyError struct {
	Model   string // the model, "provider:name"
	KeyEnv  string // the variable to set, e.g. GEMINI_API_KEY
	EnvFile string // the workspace's .env, which may hold it
}

func (e *MissingKeyError) Error() string {
	return fmt.Sprintf("no API key for %s: set %s in the environment or in %s (or enter it in the app's settings)", e.Model, e.KeyEnv, e.EnvFile)
}

// SessionError is a failure to write the session file.
type SessionError struct{ Err error }

func (e *SessionError) Error() string { return e.Err.Error() }
func (e *SessionError) Unwrap() error { return e.Err }

// Describe describes err, which ended a turn, as the fields of a Failed
// event (its Meta left for the caller): the cause, a summary in plain
// words and what to do about it. spec is the turn's model, baseURL the
// endpoint it is called at as it may be shown ("" when not set).
func Describe(err error, spec model.Spec, baseURL string) *event.Failed {
	f := &event.Failed{Error: err.Error()}
	// URLs in errors and words (jupyter_url, a model's base URL, a
	// provider's message) lose their secrets, whichever case built them.
	defer redactFailed(f)
	var (
		missing *MissingKeyError
		apiErr  *model.APIError
		sessErr *SessionError
		cutErr  *longsession.SummaryCutError
	)
	switch {
	case errors.As(err, &missing):
		f.Cause, f.KeyEnv = CauseAPIKey, missing.KeyEnv
		f.Summary = fmt.Sprintf("No API key for %s.", missing.Model)
		f.Fix = fmt.Sprintf("Set %s (in the app's API keys, the environment or %s), then try again.", missing.KeyEnv, missing.EnvFile)
	case errors.As(err, &apiErr):
		f.Cause, f.Status = CauseModel, apiErr.StatusCode
		f.Summary, f.Fix = describeAPIError(apiErr, spec)
	case errors.As(err, &sessErr):
		f.Cause = CauseSession
		f.Summary = "The conversation could not be saved to the session file."
		f.Fix = "Check that the workspace's .freeact/sessions folder is writable and the disk has room, then try again."
	case model.IsConnectionLost(err):
		f.Cause = CauseModel
		f.Summary = "The connection to the model service was lost in the middle of its reply."
		f.Fix = "Check that the model server is still running (a local server may have stopped or crashed), then try again."
	case unreachable(err):
		f.Cause = CauseModel
		where := spec.String()
		if baseURL != "" {
			where += " at " + baseURL
		}
		f.Summary = fmt.Sprintf("The model service could not be reached (%s).", where)
		f.Fix = "Check the network connection and the model's base URL, then try again."
	case errors.Is(err, model.ErrStalled):
		f.Cause = CauseModel
		f.Summary = "The model service stopped answering in the middle of its reply."
		f.Fix = "Try again in a moment."
	case errors.As(err, &cutErr):
		f.Cause = CauseModel
		f.Summary = "The conversation was not compacted: " + cutErr.Error() + "."
		f.Fix = fmt.Sprintf("Raise %s in %s (or choose a model with a longer output), then compact again.", history.MaxTokensSetting, config.SettingsTab(history.MaxTokensSetting))
	case errors.Is(err, longsession.ErrNothingToCompact):
		f.Cause = CauseOther
		f.Summary = "There is nothing to compact yet: the conversation is short."
		f.Fix = "Compact once the conversation has grown; it happens by itself near the context window."
	default:
		f.Cause = CauseOther
		f.Summary = "The turn failed."
		f.Fix = "Read the error above; try again, and if it fails again, check the model's settings and the log."
	}
	return f
}

// describeAPIError says in plain words what a provider's error response
// means and what fixes it.
func describeAPIError(e *model.APIError, spec model.Spec) (summary, fix string) {
	name := spec.String()
	switch c := e.StatusCode; {
	case model.IsContextOverflow(e):
		what := "the model's context window"
		if n := model.OverflowWindow(e); n > 0 {
			what = fmt.Sprintf("the model's context window of %d tokens", n)
		}
		return fmt.Sprintf("The conversation is larger than %s, even after compacting (HTTP %d).", what, c),
			"Start a new session, or give the model a larger window (for llama.cpp, --ctx-size), then try again."
	case c == 401 || c == 403:
		return fmt.Sprintf("The provider refused the API key for %s (HTTP %d).", name, c),
			fmt.Sprintf("Check %s: enter a valid key, then try again.", spec.KeyEnv)
	case c == 404:
		return fmt.Sprintf("The provider does not know the model %q (HTTP 404).", spec.Name),
			"Check the model name in " + config.SettingsTab("model") + ", then try again."
	case c == 429:
		return fmt.Sprintf("The provider's rate limit or quota for %s is used up (HTTP 429).", name),
			"Wait a moment and try again, or check the plan and quota of your API key."
	case c == 500 && model.IsMalformedRequest(e):
		return fmt.Sprintf("The model server refused the request as malformed (HTTP 500: %s); it was not retried, since the same request would fail again.", Clip(e.Message, 160)),
			"The server could not read what the conversation holds (often a chat template without tool calls, or a model that wrote broken tool arguments): try another model or chat template, or start a new session."
	case c >= 500:
		return fmt.Sprintf("The provider had a server error (HTTP %d).", c),
			"This is on the provider's side: try again in a moment."
	default:
		return fmt.Sprintf("The provider rejected the request (HTTP %d).", c),
			"Check the model and its settings (model_settings) in " + config.SettingsTab("model_settings") + ", then try again."
	}
}

// Clip shortens s to n runes, marking the cut.
func Clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// unreachable reports a failure to reach the model service at all.
func unreachable(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) {
		return true
	}
	var dns *net.DNSError
	var op *net.OpError
	var ue *url.Error
	return errors.As(err, &dns) || errors.As(err, &op) || (errors.As(err, &ue) && !errors.Is(err, context.Canceled))
}

// redactFailed takes the secrets out of the URLs in the event's text.
func redactFailed(f *event.Failed) {
	for _, s := range []*string{&f.Error, &f.Summary, &f.Fix} {
		*s = redact.Text(*s)
	}
}

// BaseURL is the endpoint spec is called at, when set, as it may be
// shown: without its userinfo and query values. getenv reads the
// workspace's environment (the base URL variable overrides the spec's).
func BaseURL(spec model.Spec, getenv func(string) string) string {
	return redact.URL(rawBaseURL(spec, getenv))
}

// rawBaseURL is the endpoint spec is called at, as set ("" when not).
func rawBaseURL(spec model.Spec, getenv func(string) string) string {
	v := spec.BaseURLEnv
	if spec.Gemini() {
		v = "GOOGLE_GEMINI_BASE_URL"
	}
	if v == "" {
		return spec.BaseURL
	}
	if u := getenv(v); u != "" {
		return strings.TrimRight(u, "/")
	}
	return spec.BaseURL
}

// Steps of Start that can fail (StartError.Step).
const (
	StepPrompt  = "prompt"  // the system prompt: skills, AGENTS.md
	StepModel   = "model"   // the model setting
	StepSession = "session" // opening or loading the session
	StepSandbox = "sandbox" // sandbox mode
	StepPython  = "python"  // the kernel's Python environment
	StepServer  = "server"  // the Jupyter server (local or jupyter_url)
	StepKernel  = "kernel"  // the kernel itself
)

// StartError is the error of a failed Start: which step failed and why.
type StartError struct {
	Step string
	Err  error
}

func (e *StartError) Error() string { return redact.Text(e.Err.Error()) }
func (e *StartError) Unwrap() error { return e.Err }

// Summary says in plain words what failed.
func (e *StartError) Summary() string { return e.words().summary }

// Fix says what to do about it.
func (e *StartError) Fix() string { return e.words().fix }

func (e *StartError) words() stepWords {
	if w, ok := hubWords(e.Err); ok && e.Step == StepServer {
		return w
	}
	return startStep(e.Step)
}

// hubWords are the words for a JupyterHub's refusals (kernel/hub): the
// sign-in is in Settings → Kernel.
func hubWords(err error) (stepWords, bool) {
	signIn := "Paste a token from the Hub's token page in Settings → Kernel (or sign in there in the browser, where the Hub offers it), then retry."
	switch {
	case errors.Is(err, hub.ErrNoToken):
		return stepWords{"The JupyterHub needs you to sign in.", signIn}, true
	case errors.Is(err, hub.ErrToken):
		return stepWords{"The JupyterHub refused the token (revoked or expired).", signIn}, true
	case errors.Is(err, hub.ErrScope):
		return stepWords{"The JupyterHub token lacks a scope freeact needs.", "Create a token with the scopes named above and paste it in Settings → Kernel, then retry."}, true
	case errors.Is(err, hub.ErrSpawn):
		return stepWords{"The JupyterHub could not start your server.", "See the spawner's message above, or ask the Hub's administrator, then retry."}, true
	}
	return stepWords{}, false
}

// stepWords say what failed at a step of Start, in plain words, and how to
// fix it.
type stepWords struct{ summary, fix string }

// startStep returns the words for step; an unknown step is the kernel's.
func startStep(step string) stepWords {
	switch step {
	case StepPrompt:
		return stepWords{"The system prompt could not be made from the workspace's skills and AGENTS.md.",
			"Fix the skill or AGENTS.md named above, then retry."}
	case StepModel:
		return stepWords{"The model setting is not valid.",
			"Correct the model in " + config.SettingsTab("model") + ", then retry."}
	case StepSession:
		return stepWords{"The session could not be opened.",
			"Start a new session, or check the files under .freeact/sessions."}
	case StepSandbox:
		return stepWords{"The sandbox could not be set up.",
			"Check that sandbox-runtime (srt) and bubblewrap are installed, or turn the sandbox off in Settings → Sandbox, then retry."}
	case StepPython:
		return stepWords{"The kernel's Python could not be used.",
			"Correct the python setting (the kernel's interpreter) in " + config.SettingsTab("python") + ", or clear it to use the workspace's .venv or the app's own Python, then retry."}
	case StepServer:
		return stepWords{"The Jupyter server did not start.",
			"Check jupyter_url and jupyter_token in " + config.SettingsTab("jupyter_url") + ", or that the interpreter has jupyter_server 1.23 or newer, then retry."}
	}
	return stepWords{"The kernel did not start.",
		"Check that the interpreter has ipykernel 6.17 or newer, then retry."}
}
