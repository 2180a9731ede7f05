package toolsearch

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"unicode"

	"google.golang.org/genai"

	"github.com/freeact/desktop/internal/redact"
)

// Purpose says what a text is embedded for; some models embed queries and
// documents differently.
type Purpose int

// Purposes of Embed.
const (
	ForDocument Purpose = iota
	ForQuery
)

// Embedder turns texts into vectors of Dim() numbers.
type Embedder interface {
	// Name identifies the model and dimension: vectors made under another
	// name are made again.
	Name() string
	Dim() int
	Embed(ctx context.Context, texts []string, p Purpose) ([][]float32, error)
}

// TestEmbedder makes deterministic vectors without any service: word and
// character-trigram features hashed into Dim numbers. Texts sharing words
// get similar vectors, which is enough for tests; select it with
// PYTOOLS_EMBEDDING_MODEL=test.
type TestEmbedder struct{ D int }

// Name implements Embedder.
func (e TestEmbedder) Name() string { return fmt.Sprintf("test/%d", e.D) }

// Dim implements Embedder.
func (e TestEmbedder) Dim() int { return e.D }

// Embed implements Embedder.
func (e TestEmbedder) Embed(_ context.Context, texts []string, _ Purpose) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, e.D)
		for _, w := range words(t) {
			v[bucket(w, e.D)] += 2
			if len(w) > 3 {
				for j := 0; j+3 <= len(w); j++ {
					v[bucket("#"+w[j:j+3], e.D)]++
				}
			}
		}
		normalize(v)
		out[i] = v
	}
	return out, nil
}

func bucket(s string, d int) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	return int(h.Sum32() % uint32(d))
}

// words splits text into lower-case words at anything that is not a letter
// or digit (so create_issue is "create", "issue").
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
}

// GeminiEmbedder embeds with a Gemini embedding model through genai.
type GeminiEmbedder struct {
	client *genai.Client
	model  string
	dim    int
}

// NewGeminiEmbedder opens a client for model (e.g. "gemini-embedding-001")
// with vectors of dim numbers; baseURL may point to another endpoint.
func NewGeminiEmbedder(ctx context.Context, apiKey, baseURL, model string, dim int) (*GeminiEmbedder, error) {
	if apiKey == "" {
		return nil, fmt.Errorf("hybrid tool search needs a Gemini API key for embeddings: set GEMINI_API_KEY (or PYTOOLS_EMBEDDING_MODEL=test for a test embedder)")
	}
	c, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: apiKey, Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: baseURL}})
	if err != nil {
		return nil, redact.Err(fmt.Errorf("create Gemini client for embeddings: %w", err))
	}
	return &GeminiEmbedder{client: c, model: strings.TrimPrefix(model, "models/"), dim: dim}, nil
}

// Name implements Embedder.
func (g *GeminiEmbedder) Name() string { return fmt.Sprintf("google:%s/%d", g.model, g.dim) }

// Dim implements Embedder.
func (g *GeminiEmbedder) Dim() int { return g.dim }

// Embed implements Embedder; it sends at most 100 texts a request.
func (g *GeminiEmbedder) Embed(ctx context.Context, texts []string, p Purpose) ([][]float32, error) {
	task := "RETRIEVAL_DOCUMENT"
	if p == ForQuery {
		task = "RETRIEVAL_QUERY"
	}
	dim := int32(g.dim)
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += 100 {
		batch := texts[start:min(start+100, len(texts))]
		contents := make([]*genai.Content, len(batch))
		for i, t := range batch {
			contents[i] = genai.NewContentFromText(t, genai.RoleUser)
		}
		res, err := g.client.Models.EmbedContent(ctx, g.model, contents, &genai.EmbedContentConfig{TaskType: task, OutputDimensionality: &dim})
		if err != nil {
			// GOOGLE_GEMINI_BASE_URL may hold secrets.
			return nil, redact.Err(fmt.Errorf("embed with %s: %w", g.model, err))
		}
		if len(res.Embeddings) != len(batch) {
			return nil, fmt.Errorf("embed with %s: %d vectors for %d texts", g.model, len(res.Embeddings), len(batch))
		}
		for _, e := range res.Embeddings {
			if len(e.Values) != g.dim {
				return nil, fmt.Errorf("embed with %s: a vector of %d numbers, want %d", g.model, len(e.Values), g.dim)
			}
			v := e.Values
			normalize(v)
			out = append(out, v)
		}
	}
	return out, nil
}
