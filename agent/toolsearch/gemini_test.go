package toolsearch_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/freeact/desktop/agent/toolsearch"
)

// The Gemini embedder against a fake of the batch embedding endpoint: one
// request a batch of at most 100 texts, the task type by purpose, the
// dimension asked for, and vectors normalized.
func TestGeminiEmbedder(t *testing.T) {
	var mu sync.Mutex
	var paths, tasks []string
	var sizes []int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Requests []struct {
				TaskType             string `json:"taskType"`
				OutputDimensionality int    `json:"outputDimensionality"`
			} `json:"requests"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		mu.Lock()
		paths = append(paths, r.URL.Path)
		sizes = append(sizes, len(body.Requests))
		if len(body.Requests) > 0 {
			tasks = append(tasks, body.Requests[0].TaskType)
		}
		mu.Unlock()
		type emb struct {
			Values []float32 `json:"values"`
		}
		var out struct {
			Embeddings []emb `json:"embeddings"`
		}
		for _, req := range body.Requests {
			v := make([]float32, req.OutputDimensionality)
			v[0], v[1] = 3, 4
			out.Embeddings = append(out.Embeddings, emb{v})
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	defer srv.Close()
	e, err := toolsearch.NewGeminiEmbedder(context.Background(), "key", srv.URL, "models/gemini-embedding-001", 8)
	if err != nil {
		t.Fatal(err)
	}
	if e.Name() != "google:gemini-embedding-001/8" || e.Dim() != 8 {
		t.Errorf("name %s dim %d", e.Name(), e.Dim())
	}
	texts := make([]string, 150)
	for i := range texts {
		texts[i] = "tool"
	}
	vecs, err := e.Embed(context.Background(), texts, toolsearch.ForDocument)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 150 || vecs[149][0] != 0.6 || vecs[149][1] != 0.8 {
		t.Fatalf("vectors %d %v", len(vecs), vecs[149])
	}
	if _, err := e.Embed(context.Background(), []string{"q"}, toolsearch.ForQuery); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sizes) != 3 || sizes[0] != 100 || sizes[1] != 50 || sizes[2] != 1 {
		t.Errorf("batch sizes %v", sizes)
	}
	if strings.Join(tasks, ",") != "RETRIEVAL_DOCUMENT,RETRIEVAL_DOCUMENT,RETRIEVAL_QUERY" {
		t.Errorf("task types %v", tasks)
	}
	if !strings.Contains(paths[0], "gemini-embedding-001:batchEmbedContents") {
		t.Errorf("path %s", paths[0])
	}
	if _, err := toolsearch.NewGeminiEmbedder(context.Background(), "", "", "m", 8); err == nil || !strings.Contains(err.Error(), "GEMINI_API_KEY") {
		t.Errorf("no key: %v", err)
	}
}

// A base URL's userinfo and key= (GOOGLE_GEMINI_BASE_URL) stay out of an
// embedding's error, which reaches the model and the log.
func TestGeminiEmbedderErrorsRedactTheBaseURL(t *testing.T) {
	e, err := toolsearch.NewGeminiEmbedder(context.Background(), "key", "http://tok-s3cret:pw-s3cret@127.0.0.1:1/?key=key-s3cret", "models/gemini-embedding-001", 8)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Embed(context.Background(), []string{"a"}, toolsearch.ForQuery)
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "***") {
		t.Errorf("error %v", err)
	}
}
