package provider_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/agent/model/provider"
)

// hello sends "hello" and returns the reply text.
func hello(t *testing.T, m model.Model) string {
	t.Helper()
	var reply model.Message
	for c, err := range m.Stream(t.Context(), &model.Request{Messages: []model.Message{model.UserText("hello")}}) {
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := c.(model.Done); ok {
			reply = d.Message
		}
	}
	return reply.Text()
}

func TestModelStringsReachTheirServers(t *testing.T) {
	maxTokens := 100
	tests := []struct {
		name      string
		model     string
		wire      string // gemini, anthropic; default openai
		env       func(t *testing.T, url string)
		wantName  string
		wantModel string // as the server saw it
		wantBody  string // a fragment of the request body
	}{
		{
			name: "bare name is Gemini via GOOGLE_GEMINI_BASE_URL", model: "gemini-3-flash-preview", wire: "gemini",
			wantName: "google:gemini-3-flash-preview", wantModel: "gemini-3-flash-preview", wantBody: `"includeThoughts":true`,
		},
		{
			name: "anthropic via ANTHROPIC_BASE_URL", model: "anthropic:claude-sonnet-4-5", wire: "anthropic",
			wantName: "anthropic:claude-sonnet-4-5", wantModel: "claude-sonnet-4-5", wantBody: `"max_tokens":100`,
		},
		{
			name: "openai via OPENAI_BASE_URL", model: "openai:gpt-5",
			env: func(t *testing.T, url string) {
				t.Setenv("OPENAI_BASE_URL", url+"/v1")
				t.Setenv("OPENAI_API_KEY", "sk-test")
			},
			wantName: "openai:gpt-5", wantModel: "gpt-5", wantBody: `"max_completion_tokens":100`,
		},
		{
			name: "ollama via OLLAMA_BASE_URL, no key", model: "ollama:qwen3:8b",
			env:      func(t *testing.T, url string) { t.Setenv("OLLAMA_BASE_URL", url+"/v1") },
			wantName: "ollama:qwen3:8b", wantModel: "qwen3:8b", wantBody: `"max_tokens":100`,
		},
		{
			name: "any OpenAI-compatible base URL", model: "URL/v1#Qwen/Qwen3-8B",
			wantName: "URL/v1#Qwen/Qwen3-8B", wantModel: "Qwen/Qwen3-8B", wantBody: `"stream":true`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := modeltest.LoadScenario(t, "testdata/hello.yaml")
			var srv *modeltest.Server
			switch tt.wire {
			case "gemini":
				srv = modeltest.UseGemini(t, sc)
			case "anthropic":
				srv = modeltest.UseAnthropic(t, sc)
			default:
				srv = modeltest.NewOpenAI(t, sc)
			}
			if tt.env != nil {
				tt.env(t, srv.URL())
			}
			modelString := strings.ReplaceAll(tt.model, "URL", srv.URL())
			settings := model.DefaultSettings()
			settings.MaxTokens = &maxTokens
			m, err := provider.New(t.Context(), modelString, provider.Options{Settings: &settings})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := m.Name(), strings.ReplaceAll(tt.wantName, "URL", srv.URL()); got != want {
				t.Errorf("Name() = %q, want %q", got, want)
			}
			if got := hello(t, m); got != "Hello!" {
				t.Errorf("reply %q", got)
			}
			req := srv.Requests()[0]
			if req.Model != tt.wantModel {
				t.Errorf("server saw model %q, want %q", req.Model, tt.wantModel)
			}
			if !strings.Contains(string(req.Body), tt.wantBody) {
				t.Errorf("body lacks %s: %s", tt.wantBody, req.Body)
			}
		})
	}
}

func TestOptionsOverrideEnvironment(t *testing.T) {
	srv := modeltest.NewOpenAI(t, modeltest.LoadScenario(t, "testdata/hello.yaml"))
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1") // would fail if used
	t.Setenv("OPENAI_API_KEY", "")
	m, err := provider.New(t.Context(), "openai:gpt-5", provider.Options{BaseURL: srv.URL() + "/v1", APIKey: "sk-opt"})
	if err != nil {
		t.Fatal(err)
	}
	if got := hello(t, m); got != "Hello!" {
		t.Errorf("reply %q", got)
	}
	if key := srv.Requests()[0].APIKey; key != "sk-opt" {
		t.Errorf("key %q", key)
	}
}

func TestDefaultSettingsAskForThoughts(t *testing.T) {
	srv := modeltest.UseGemini(t, modeltest.LoadScenario(t, "testdata/hello.yaml"))
	m, err := provider.New(t.Context(), "google:gemini-3-pro-preview", provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hello(t, m)
	var body struct {
		GenerationConfig struct {
			ThinkingConfig map[string]any `json:"thinkingConfig"`
		} `json:"generationConfig"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	tc := body.GenerationConfig.ThinkingConfig
	if tc["includeThoughts"] != true || tc["thinkingLevel"] != "MEDIUM" { // freeact's default level
		t.Errorf("thinkingConfig = %v", tc)
	}
}

func TestNewErrors(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENROUTER_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	tests := []struct{ model, want string }{
		{"gemini-3-flash-preview", "set GEMINI_API_KEY (or GOOGLE_API_KEY)"},
		{"openai:gpt-5", "no API key for openai:gpt-5: set OPENAI_API_KEY"},
		{"openrouter:x/y", "set OPENROUTER_API_KEY"},
		{"cohere:command", `unknown provider "cohere" (known: google`},
		{"anthropic:claude-sonnet-4-5", "set ANTHROPIC_API_KEY"},
	}
	for _, tt := range tests {
		_, err := provider.New(t.Context(), tt.model, provider.Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want one containing %q", tt.model, err, tt.want)
		}
	}
}

// A stream that ends without the provider saying why the model stopped
// (a cut connection, a proxy that drops the last event) is a failure, not a
// final answer, on every wire.
func TestStreamWithoutFinishReasonFails(t *testing.T) {
	for _, wire := range []string{"gemini", "anthropic", "openai"} {
		for _, ending := range []string{"finish: none", "then: cut"} {
			t.Run(wire+"/"+ending, func(t *testing.T) {
				sc, err := modeltest.ParseScenario([]byte("turns:\n  - reply: [{text: \"The answer is\"}]\n    " + ending + "\n"))
				if err != nil {
					t.Fatal(err)
				}
				modelString := "gemini-3-flash-preview"
				switch wire {
				case "gemini":
					modeltest.UseGemini(t, sc)
				case "anthropic":
					modeltest.UseAnthropic(t, sc)
					modelString = "anthropic:claude-sonnet-4-5"
				default:
					modelString = "openai:gpt-5"
					t.Setenv("OPENAI_BASE_URL", modeltest.NewOpenAI(t, sc).URL()+"/v1")
					t.Setenv("OPENAI_API_KEY", "sk-test")
				}
				m, err := provider.New(t.Context(), modelString, provider.Options{})
				if err != nil {
					t.Fatal(err)
				}
				var text string
				var last error
				for c, err := range m.Stream(t.Context(), &model.Request{Messages: []model.Message{model.UserText("hello")}}) {
					switch c := c.(type) {
					case model.TextDelta:
						text += c.Text
					case model.Done:
						t.Fatalf("the stream ended with a final answer %q", c.Message.Text())
					}
					last = err
				}
				if text != "The answer is" || last == nil {
					t.Fatalf("text %q, error %v", text, last)
				}
				partial, ok := model.PartialMessage(last)
				if !ok || partial.Text() != "The answer is" {
					t.Errorf("the error does not carry the partial answer: %v", last)
				}
				if ending == "finish: none" && (!errors.Is(last, model.ErrIncomplete) ||
					!strings.Contains(last.Error(), "the response ended without a finish reason, so it may be incomplete")) {
					t.Errorf("error %q, want ErrIncomplete", last)
				}
			})
		}
	}
}

// A server of the user's own (a base URL model string) never gets
// OPENAI_API_KEY; it gets the key assigned to it.
func TestCustomURLGetsOnlyItsOwnKey(t *testing.T) {
	srv := modeltest.NewOpenAI(t, modeltest.LoadScenario(t, "testdata/hello.yaml"))
	t.Setenv("OPENAI_API_KEY", "sk-openai-secret")
	m, err := provider.New(t.Context(), srv.URL()+"/v1#local", provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hello(t, m)
	if key := srv.Requests()[0].APIKey; key != "" {
		t.Errorf("the custom server got the key %q", key)
	}
}

// A key goes over plain HTTP only to this machine, unless allowed.
func TestKeyNeverOverPlainHTTPToAnotherHost(t *testing.T) {
	_, err := provider.New(t.Context(), "http://gpu-box.lan:8000/v1#qwen", provider.Options{APIKey: "sk-secret"})
	if err == nil || !strings.Contains(err.Error(), "plain HTTP") || !strings.Contains(err.Error(), "allow_http_key") {
		t.Errorf("New with a key to a plain-HTTP host: %v, want a refusal naming allow_http_key", err)
	}
	if strings.Contains(fmt.Sprint(err), "sk-secret") {
		t.Error("the error shows the key")
	}
	// A base URL from OPENAI_BASE_URL with secrets in it is shown redacted.
	t.Setenv("OPENAI_BASE_URL", "http://me:pw-s3cret@gpu-box.lan:8000/v1?key=key-s3cret")
	if _, err := provider.New(t.Context(), "openai:gpt-5-mini", provider.Options{APIKey: "sk-secret"}); err == nil ||
		strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "http://***@gpu-box.lan:8000/v1?key=***") {
		t.Errorf("the refusal for a base URL with secrets: %v", err)
	}
	if _, err := provider.New(t.Context(), "http://gpu-box.lan:8000/v1#qwen", provider.Options{APIKey: "sk-secret", AllowHTTPKey: true}); err != nil {
		t.Errorf("allowed: %v", err)
	}
	if _, err := provider.New(t.Context(), "http://gpu-box.lan:8000/v1#qwen", provider.Options{}); err != nil {
		t.Errorf("no key at all: %v", err)
	}
	for base, want := range map[string]bool{
		"https://api.openai.com/v1": true, "http://localhost:8080/v1": true, "http://127.0.0.1:8080/v1": true,
		"http://[::1]:8080/v1": true, "http://127.9.9.9/v1": true, "http://gpu-box.lan:8000/v1": false,
		"http://192.168.1.10:11434/v1": false, "http://localhost.evil.com/v1": false, "ftp://localhost/": false,
	} {
		if got := provider.SafeForKey(base); got != want {
			t.Errorf("SafeForKey(%q) = %v, want %v", base, got, want)
		}
	}
}
