// Package provider opens a model.Model from a model string of agent.json
// ("google:gemini-3-flash-preview", "anthropic:claude-sonnet-4-5",
// "openai:gpt-5", "ollama:qwen3",
// "http://host:8000/v1#name", ...), picking the backend, endpoint and key.
package provider

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/anthropic"
	"github.com/freeact/desktop/agent/model/gemini"
	"github.com/freeact/desktop/agent/model/openai"
	"github.com/freeact/desktop/internal/redact"
)

// Options adjust New. The zero value reads keys and endpoints from the
// environment and uses the default settings and retry policy.
type Options struct {
	// Settings are the model_settings; nil means model.DefaultSettings().
	Settings *model.Settings
	// APIKey overrides the provider's key variable.
	APIKey string
	// BaseURL overrides the provider's endpoint and its variable.
	BaseURL string
	// AllowHTTPKey lets the API key go over plain http:// to a host that
	// is not this machine; without it New refuses, as anyone on the way
	// could read the key.
	AllowHTTPKey bool
	HTTPClient   *http.Client
	Retry        model.RetryPolicy
}

// New parses the model string and returns the model, ready to stream. It
// does not contact the provider; a missing API key is an error naming the
// variable to set.
func New(ctx context.Context, modelString string, opts Options) (_ model.Model, err error) {
	defer func() { err = redact.Err(err) }() // a base URL may hold secrets
	spec, err := model.ParseModelString(modelString)
	if err != nil {
		return nil, err
	}
	settings := model.DefaultSettings()
	if opts.Settings != nil {
		settings = *opts.Settings
	}
	if spec.Gemini() {
		b, err := gemini.New(ctx, gemini.Config{
			Model: spec.Name, Settings: settings, APIKey: opts.APIKey, BaseURL: opts.BaseURL, HTTPClient: opts.HTTPClient,
		})
		if err != nil {
			return nil, err
		}
		return model.New(b, opts.Retry), nil
	}
	key := opts.APIKey
	if key == "" {
		key = os.Getenv(spec.KeyEnv)
	}
	if key == "" && spec.KeyRequired {
		return nil, fmt.Errorf("no API key for %s: set %s in the environment", spec, spec.KeyEnv)
	}
	base := opts.BaseURL
	if base == "" && spec.BaseURLEnv != "" {
		base = os.Getenv(spec.BaseURLEnv)
	}
	if base == "" {
		base = spec.BaseURL
	}
	if key != "" && !opts.AllowHTTPKey && !SafeForKey(base) {
		return nil, fmt.Errorf("%s: refusing to send the API key over plain HTTP to %s: use https://, or allow it for this endpoint (provider_settings \"allow_http_key\": true)", spec, base)
	}
	if spec.Provider == "anthropic" {
		b, err := anthropic.New(anthropic.Config{Model: spec.Name, BaseURL: base, APIKey: key, Settings: settings, HTTPClient: opts.HTTPClient})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec, err)
		}
		return model.New(b, opts.Retry), nil
	}
	b, err := openai.New(openai.Config{
		Model:               spec.Name,
		BaseURL:             base,
		APIKey:              key,
		Label:               spec.String(),
		Settings:            settings,
		HTTPClient:          opts.HTTPClient,
		MaxCompletionTokens: spec.Provider == "openai",
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec, err)
	}
	return model.New(b, opts.Retry), nil
}

// SafeForKey reports whether an API key may go to base: over https, or
// over http to this machine (localhost or a loopback address).
func SafeForKey(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	if u.Scheme == "https" {
		return true
	}
	if u.Scheme != "http" {
		return false
	}
	host := u.Hostname()
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
