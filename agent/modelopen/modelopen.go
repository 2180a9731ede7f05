// Package modelopen opens the model that a workspace's agent.json names:
// the provider, its API key and endpoint (provider_settings, the process
// environment, the workspace .env or the app's stored keys), and code
// actions as fenced blocks for models that cannot call tools. It needs no
// agent: front ends check a configuration with Check before starting one.
package modelopen

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/failure"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/provider"
)

// Check reports what would keep the model of cfg from opening without
// opening it: an invalid model string, or a missing API key (a
// *failure.MissingKeyError).
func Check(cfg *config.Config) error {
	_, _, err := Options(cfg)
	return err
}

// Options finds the provider options of cfg's model: the API key and
// endpoint from provider_settings, else the process environment, the
// workspace .env or the app's stored keys.
func Options(cfg *config.Config) (model.Spec, provider.Options, error) {
	spec, err := model.ParseModelString(cfg.Options.Model)
	if err != nil {
		return spec, provider.Options{}, fmt.Errorf("model in %s: %w", cfg.SettingsFile(), err)
	}
	po := provider.Options{Settings: &cfg.Options.ModelSettings}
	if t := cfg.Options.ModelSettings.Timeout; t != nil {
		po.Retry.IdleTimeout = time.Duration(*t * float64(time.Second))
	}
	keyVars := []string{spec.KeyEnv}
	if spec.Gemini() {
		keyVars = []string{"GOOGLE_API_KEY", "GEMINI_API_KEY"}
		po.BaseURL = cfg.Env.Getenv("GOOGLE_GEMINI_BASE_URL")
	} else if spec.BaseURLEnv != "" {
		po.BaseURL = cfg.Env.Getenv(spec.BaseURLEnv)
	}
	for _, v := range keyVars {
		if k := cfg.Env.FirstNonEmpty(v); k != "" {
			po.APIKey = k
			break
		}
	}
	// provider_settings (pydantic-ai's provider arguments) win over the
	// environment, as they do in the Python freeact; api_key_env names the
	// variable with this endpoint's own key.
	ps := cfg.Options.ProviderSettings
	keyEnv := spec.KeyEnv
	if v, ok := ps["api_key_env"].(string); ok && v != "" {
		keyEnv, po.APIKey = v, cfg.Env.FirstNonEmpty(v)
		if po.APIKey == "" {
			return spec, po, &failure.MissingKeyError{Model: spec.String(), KeyEnv: v, EnvFile: filepath.Join(cfg.Dir, ".env")}
		}
	}
	if k, ok := ps["api_key"].(string); ok && k != "" {
		po.APIKey = k
	}
	if u, ok := ps["base_url"].(string); ok && u != "" {
		po.BaseURL = u
	}
	switch v := ps["allow_http_key"].(type) {
	case nil:
	case bool:
		po.AllowHTTPKey = v
	default:
		return spec, po, fmt.Errorf("provider_settings in %s: allow_http_key is %v, want true or false", cfg.SettingsFile(), v)
	}
	if po.APIKey == "" && (spec.Gemini() || spec.KeyRequired) {
		return spec, po, &failure.MissingKeyError{Model: spec.String(), KeyEnv: keyEnv, EnvFile: filepath.Join(cfg.Dir, ".env")}
	}
	return spec, po, nil
}

// Open opens the model of agent.json (see Options).
func Open(ctx context.Context, cfg *config.Config) (model.Model, error) {
	spec, po, err := Options(cfg)
	if err != nil {
		return nil, err
	}
	m, err := provider.New(ctx, cfg.Options.Model, po)
	if err != nil {
		return nil, fmt.Errorf("open model %s: %w", spec, err)
	}
	return codeActions(cfg, spec, po, m), nil
}
