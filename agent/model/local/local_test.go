package local

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// fake serves fixed answers by path; other paths are 404, as on servers
// that do not have them.
func fake(t *testing.T, answers map[string]string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := answers[r.Method+" "+r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Answers in the shape each server sends them (trimmed to the fields read
// and a few beside them).
var (
	llamaCpp = map[string]string{
		"GET /props":     `{"default_generation_settings":{"n_ctx":4096,"params":{"n_predict":-1}},"total_slots":1,"model_path":"/models/SmolLM2-135M-Instruct.gguf","chat_template":"..."}`,
		"GET /v1/models": `{"object":"list","data":[{"id":"SmolLM2-135M-Instruct.gguf","object":"model","owned_by":"llamacpp","meta":{"vocab_type":2,"n_vocab":49152,"n_ctx_train":8192,"n_embd":576}}]}`,
	}
	ollama = map[string]string{
		"GET /api/tags":  `{"models":[{"name":"qwen3:8b","model":"qwen3:8b","size":5225388164},{"name":"llama3.2:latest","model":"llama3.2:latest","size":2019393189}]}`,
		"POST /api/show": `{"parameters":"stop \"<|im_end|>\"\nnum_ctx 16384\ntemperature 0.6","model_info":{"general.architecture":"qwen3","qwen3.context_length":40960}}`,
		"GET /v1/models": `{"object":"list","data":[{"id":"qwen3:8b","object":"model","owned_by":"library"}]}`,
	}
	ollamaNoNumCtx = map[string]string{
		"POST /api/show": `{"parameters":"temperature 0.6","model_info":{"general.architecture":"llama","llama.context_length":131072}}`,
	}
	vllm = map[string]string{
		"GET /v1/models": `{"object":"list","data":[{"id":"Qwen/Qwen3-8B","object":"model","owned_by":"vllm","max_model_len":32768}]}`,
	}
)

func TestWindow(t *testing.T) {
	tests := []struct {
		name    string
		answers map[string]string
		model   string
		want    int
	}{
		{"llama.cpp /props", llamaCpp, "SmolLM2-135M-Instruct.gguf", 4096},
		{"ollama num_ctx", ollama, "qwen3:8b", 16384},
		{"ollama context_length", ollamaNoNumCtx, "llama3.2", 131072},
		{"vLLM max_model_len", vllm, "Qwen/Qwen3-8B", 32768},
		{"vLLM, another model", vllm, "other", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fake(t, tt.answers)
			got, err := Server{BaseURL: srv.URL + "/v1"}.Window(t.Context(), tt.model)
			if err != nil || got != tt.want {
				t.Errorf("Window = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
	if _, err := (Server{BaseURL: "http://127.0.0.1:1/v1"}).Window(t.Context(), "x"); err == nil {
		t.Error("no error from a server that is not there")
	}
}

func TestModels(t *testing.T) {
	tests := []struct {
		name    string
		answers map[string]string
		want    []Model
	}{
		{"ollama /api/tags", ollama, []Model{{Name: "llama3.2:latest"}, {Name: "qwen3:8b"}}},
		{"llama.cpp /v1/models", llamaCpp, []Model{{Name: "SmolLM2-135M-Instruct.gguf"}}},
		{"vLLM /v1/models", vllm, []Model{{Name: "Qwen/Qwen3-8B", ContextWindow: 32768}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fake(t, tt.answers)
			got, err := Server{BaseURL: srv.URL + "/v1/"}.Models(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("Models = %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("Models[%d] = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// The key goes with each question, for servers started with --api-key.
func TestKeyIsSent(t *testing.T) {
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		_, _ = w.Write([]byte(`{"data":[]}`))
	}))
	t.Cleanup(srv.Close)
	if _, err := (Server{BaseURL: srv.URL + "/v1", APIKey: "k"}).Models(t.Context()); err != nil {
		t.Fatal(err)
	}
	if auth != "Bearer k" {
		t.Errorf("Authorization %q", auth)
	}
}

// A base URL's password and key= stay out of the errors, which the app
// logs and shows.
func TestErrorsRedactTheBaseURL(t *testing.T) {
	srv := Server{BaseURL: "http://me:pw-s3cret@127.0.0.1:1/v1?key=key-s3cret"}
	_, werr := srv.Window(t.Context(), "m")
	_, merr := srv.Models(t.Context())
	for _, err := range []error{werr, merr} {
		if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "***") {
			t.Errorf("error %v", err)
		}
	}
}
