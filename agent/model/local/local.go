// Package local asks a model server on the user's side what it offers:
// the models it lists (Ollama's /api/tags, or the OpenAI-compatible
// /v1/models of llama.cpp, vLLM, LM Studio and others) and the context
// window it runs a model with (llama.cpp's /props, Ollama's /api/show, or
// a /v1/models entry that gives one). It only reads; nothing here changes
// the server.
package local

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/freeact/desktop/internal/redact"
)

// Server is an OpenAI-compatible endpoint to ask.
type Server struct {
	// BaseURL is the OpenAI-compatible base, e.g. http://localhost:11434/v1;
	// the native endpoints (/props, /api/...) are asked at its root.
	BaseURL string
	// APIKey, when set, is sent as a bearer token (llama.cpp --api-key).
	APIKey string
	Client *http.Client // nil: http.DefaultClient
}

// Model is one model a server lists.
type Model struct {
	Name string `json:"name"`
	// ContextWindow is the window the listing gives; 0 when it gives none.
	ContextWindow int `json:"context_window,omitempty"`
}

// maxBody bounds what is read of an answer.
const maxBody = 4 << 20

// root is the server's root: the base URL without its /v1.
func (s Server) root() string {
	b := strings.TrimRight(s.BaseURL, "/")
	return strings.TrimSuffix(b, "/v1")
}

// Models lists the server's models: Ollama's /api/tags where the server
// answers it, else the OpenAI-compatible /models.
func (s Server) Models(ctx context.Context) (_ []Model, err error) {
	defer func() { err = redact.Err(err) }() // the base URL may hold secrets
	var tags struct {
		Models []struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	if err := s.get(ctx, s.root()+"/api/tags", &tags); err == nil && tags.Models != nil {
		out := make([]Model, 0, len(tags.Models))
		for _, m := range tags.Models {
			name := m.Name
			if name == "" {
				name = m.Model
			}
			out = append(out, Model{Name: name})
		}
		return sorted(out), nil
	}
	entries, err := s.openAIModels(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Model, 0, len(entries))
	for _, e := range entries {
		out = append(out, Model{Name: e.ID, ContextWindow: e.window()})
	}
	return sorted(out), nil
}

func sorted(ms []Model) []Model {
	slices.SortFunc(ms, func(a, b Model) int { return strings.Compare(a.Name, b.Name) })
	return ms
}

// modelEntry is an entry of /v1/models with the fields servers use for
// the window: vLLM's max_model_len, LM Studio's loaded_context_length and
// max_context_length, OpenRouter's context_length, llama.cpp's meta.n_ctx.
type modelEntry struct {
	ID                  string `json:"id"`
	MaxModelLen         int    `json:"max_model_len"`
	LoadedContextLength int    `json:"loaded_context_length"`
	MaxContextLength    int    `json:"max_context_length"`
	ContextLength       int    `json:"context_length"`
	Meta                *struct {
		NCtx int `json:"n_ctx"`
	} `json:"meta"`
}

func (e modelEntry) window() int {
	for _, n := range []int{e.LoadedContextLength, e.MaxModelLen, e.ContextLength, e.MaxContextLength} {
		if n > 0 {
			return n
		}
	}
	if e.Meta != nil {
		return e.Meta.NCtx
	}
	return 0
}

func (s Server) openAIModels(ctx context.Context) ([]modelEntry, error) {
	var list struct {
		Data []modelEntry `json:"data"`
	}
	if err := s.get(ctx, strings.TrimRight(s.BaseURL, "/")+"/models", &list); err != nil {
		return nil, err
	}
	return list.Data, nil
}

// Window returns the context window the server runs the model name with:
// llama.cpp's /props (n_ctx), Ollama's /api/show (the num_ctx parameter,
// else the model's context_length), or the model's /models entry; 0 with
// a nil error when the server says nothing of it.
func (s Server) Window(ctx context.Context, name string) (_ int, err error) {
	defer func() { err = redact.Err(err) }() // the base URL may hold secrets
	var props struct {
		NCtx     int `json:"n_ctx"`
		Settings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	errProps := s.get(ctx, s.root()+"/props", &props)
	if errProps == nil {
		if n := max(props.Settings.NCtx, props.NCtx); n > 0 {
			return n, nil
		}
	}
	if n, err := s.ollamaWindow(ctx, name); err == nil && n > 0 {
		return n, nil
	}
	entries, err := s.openAIModels(ctx)
	if err != nil {
		if errProps != nil {
			return 0, fmt.Errorf("ask %s for the context window: %w", s.root(), errors.Join(errProps, err))
		}
		return 0, nil
	}
	for _, e := range entries {
		if e.ID == name {
			return e.window(), nil
		}
	}
	return 0, nil
}

// ollamaWindow reads Ollama's /api/show: num_ctx when the model sets it,
// else the <architecture>.context_length it was made for.
func (s Server) ollamaWindow(ctx context.Context, name string) (int, error) {
	var show struct {
		Parameters string         `json:"parameters"`
		ModelInfo  map[string]any `json:"model_info"`
	}
	if err := s.post(ctx, s.root()+"/api/show", map[string]string{"model": name}, &show); err != nil {
		return 0, err
	}
	for line := range strings.Lines(show.Parameters) {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				return n, nil
			}
		}
	}
	for k, v := range show.ModelInfo {
		if n, ok := v.(float64); ok && strings.HasSuffix(k, ".context_length") && n > 0 {
			return int(n), nil
		}
	}
	return 0, nil
}

func (s Server) get(ctx context.Context, url string, into any) error {
	return s.do(ctx, http.MethodGet, url, nil, into)
}

func (s Server) post(ctx context.Context, url string, body, into any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	return s.do(ctx, http.MethodPost, url, b, into)
}

func (s Server) do(ctx context.Context, method, url string, body []byte, into any) error {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if s.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+s.APIKey)
	}
	client := s.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, url, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: HTTP %d", method, url, resp.StatusCode)
	}
	if err := json.Unmarshal(data, into); err != nil {
		return fmt.Errorf("%s %s: %w", method, url, err)
	}
	return nil
}
