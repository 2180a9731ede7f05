package desktop

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The picker lists what a local server offers: Ollama's /api/tags, or an
// OpenAI-compatible server's /v1/models; a server that is not there says so.
func TestLocalModels(t *testing.T) {
	d, _, _ := testDesktop(t)
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/tags" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"models":[{"name":"qwen3:8b","model":"qwen3:8b"}]}`))
	}))
	t.Cleanup(ollama.Close)
	t.Setenv("OLLAMA_BASE_URL", ollama.URL+"/v1")
	llama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"SmolLM2-135M-Instruct","object":"model","owned_by":"llamacpp"}]}`))
	}))
	t.Cleanup(llama.Close)

	if got := d.LocalModels("ollama", ""); got.Error != "" || len(got.Models) != 1 || got.Models[0].Name != "qwen3:8b" {
		t.Errorf("ollama via OLLAMA_BASE_URL: %+v", got)
	}
	if got := d.LocalModels("url", llama.URL+"/v1"); got.Error != "" || len(got.Models) != 1 || got.Models[0].Name != "SmolLM2-135M-Instruct" {
		t.Errorf("llama.cpp: %+v", got)
	}
	if got := d.LocalModels("url", "http://127.0.0.1:1/v1"); got.Error == "" || got.Models == nil {
		t.Errorf("a server that is not there: %+v", got)
	}
	// A base URL's secrets (from OLLAMA_BASE_URL or typed) stay out of
	// the error the window shows.
	t.Setenv("OLLAMA_BASE_URL", "http://me:pw-s3cret@127.0.0.1:1/v1?key=key-s3cret")
	for _, got := range []LocalModels{d.LocalModels("ollama", ""), d.LocalModels("url", "http://me:pw-s3cret@127.0.0.1:1/v1?key=key-s3cret")} {
		if got.Error == "" || strings.Contains(got.Error, "s3cret") || !strings.Contains(got.Error, "***") {
			t.Errorf("a base URL with secrets that is not there: %+v", got)
		}
	}
	if got := d.LocalModels("url", "gpu-box:8000"); got.Error == "" {
		t.Errorf("not a URL: %+v", got)
	}
	if got := d.LocalModels("google", ""); got.Error == "" {
		t.Errorf("a provider without a server of its own: %+v", got)
	}
}
