package toolsearch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/toolsearch"
	"github.com/freeact/desktop/internal/testenv"
)

func write(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tools makes a generated folder with a few tools of both sources.
func tools(t testing.TB) string {
	dir := t.TempDir()
	write(t, dir, "mcptools/github/__init__.py", `"""Package."""`)
	write(t, dir, "mcptools/github/create_issue.py", "\"\"\"Create an issue in a GitHub repository.\n\nMore text.\"\"\"\nimport x\n")
	write(t, dir, "mcptools/github/list_pull_requests.py", `"""List the pull requests of a repository."""`)
	write(t, dir, "mcptools/weather/forecast.py", "# comment\n'''Weather forecast for a city (\\'days\\' ahead).'''\n")
	write(t, dir, "mcptools/weather/not-a-module.py", `"""Skipped: not importable."""`)
	write(t, dir, "gentools/data/summarize_csv/api.py", "from __future__ import annotations\n\ndef run(path: str) -> str:\n    \"\"\"Summarize a CSV file: columns, types and counts.\"\"\"\n")
	write(t, dir, "gentools/data/summarize_csv/impl.py", "def run(path): ...\n")
	return dir
}

func TestDocstring(t *testing.T) {
	tests := []struct{ src, want string }{
		{`"""One line."""`, "One line."},
		{"# c\n\n'''Single quotes\n    indented.'''", "Single quotes\nindented."},
		{`r"""Raw \n stays."""`, `Raw \n stays.`},
		{`"""Escapes: \"q\" \\ \u00e9 \x41."""`, `Escapes: "q" \ é A.`},
		{"import os\n", ""},
		{"import os\n\ndef run():\n    \"\"\"From the function.\"\"\"\n", "From the function."},
		{`"unterminated`, ""},
	}
	for _, tt := range tests {
		if got := toolsearch.Docstring(tt.src); got != tt.want {
			t.Errorf("Docstring(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

func TestBasic(t *testing.T) {
	b := toolsearch.Basic{Dir: tools(t), DisplayDir: ".freeact/generated"}
	cats, err := b.Categories()
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(cats); got != "[{gentools data 1} {mcptools github 2} {mcptools weather 1}]" {
		t.Fatalf("categories %s", got)
	}
	tests := []struct {
		cats []string
		want []string // path: description
	}{
		{[]string{"github"}, []string{
			".freeact/generated/mcptools/github/create_issue.py: Create an issue in a GitHub repository.",
			".freeact/generated/mcptools/github/list_pull_requests.py: List the pull requests of a repository.",
		}},
		{[]string{"mcptools/weather", "data"}, []string{
			".freeact/generated/gentools/data/summarize_csv/api.py: Summarize a CSV file: columns, types and counts.",
			".freeact/generated/mcptools/weather/forecast.py: Weather forecast for a city ('days' ahead).",
		}},
	}
	for _, tt := range tests {
		got, err := b.Tools(tt.cats)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, l := range got {
			lines = append(lines, l.Path+": "+l.Description)
		}
		if !slices.Equal(lines, tt.want) {
			t.Errorf("Tools(%v) =\n%s", tt.cats, strings.Join(lines, "\n"))
		}
	}
	if _, err := b.Tools([]string{"nope"}); err == nil || !strings.Contains(err.Error(), "nope") || !strings.Contains(err.Error(), "mcptools/github") {
		t.Errorf("unknown category: %v", err)
	}
	for _, raw := range []string{`"github, data"`, `["github", "data"]`} {
		c, err := toolsearch.ParseCategories([]byte(raw))
		if err != nil || strings.Join(c, "|") != "github|data" {
			t.Errorf("ParseCategories(%s) = %v, %v", raw, c, err)
		}
	}
	if _, err := toolsearch.ParseCategories([]byte(`3`)); err == nil {
		t.Error("a number is accepted as categories")
	}
}

func open(t testing.TB, dir string) *toolsearch.Index {
	t.Helper()
	ix, err := toolsearch.Open(context.Background(), toolsearch.IndexOptions{
		Dir: dir, DBPath: filepath.Join(t.TempDir(), "search.db"), Embedder: toolsearch.TestEmbedder{D: 256},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	return ix
}

func ids(hits []toolsearch.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

func TestSearchModes(t *testing.T) {
	ix := open(t, tools(t))
	if ix.Len() != 4 {
		t.Fatalf("indexed %d tools", ix.Len())
	}
	tests := []struct {
		query, mode string
		first       string
	}{
		{"create issue", toolsearch.ModeBM25, "mcptools/github/create_issue"},
		{"create issue", toolsearch.ModeVector, "mcptools/github/create_issue"},
		{"create issue", toolsearch.ModeHybrid, "mcptools/github/create_issue"},
		{"pull requests", "", "mcptools/github/list_pull_requests"},
		{"csv summary", toolsearch.ModeHybrid, "gentools/data/summarize_csv"},
		{"weather forecast", toolsearch.ModeBM25, "mcptools/weather/forecast"},
		{`"AND OR NOT ( ) * : ^`, toolsearch.ModeBM25, ""}, // operators are words, not syntax
	}
	for _, tt := range tests {
		hits, err := ix.Search(context.Background(), tt.query, tt.mode, 3)
		if err != nil {
			t.Fatalf("%q %s: %v", tt.query, tt.mode, err)
		}
		if tt.first == "" {
			continue
		}
		if len(hits) == 0 || hits[0].ID != tt.first {
			t.Errorf("%q %s: got %v, want %s first", tt.query, tt.mode, ids(hits), tt.first)
		}
		if len(hits) > 3 {
			t.Errorf("limit 3 gave %d hits", len(hits))
		}
	}
	if _, err := ix.Search(context.Background(), "x", "fuzzy", 3); err == nil {
		t.Error("unknown mode accepted")
	}
}

// A tool saved while the index watches is found moments later; a removed
// one disappears; the index persists.
func TestWatchAndReopen(t *testing.T) {
	dir := tools(t)
	db := filepath.Join(t.TempDir(), "search.db")
	ix, err := toolsearch.Open(context.Background(), toolsearch.IndexOptions{Dir: dir, DBPath: db, Embedder: toolsearch.TestEmbedder{D: 64}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Watch(); err != nil {
		t.Fatal(err)
	}
	found := func(query, id string) bool {
		hits, err := ix.Search(context.Background(), query, toolsearch.ModeBM25, 5)
		return err == nil && slices.Contains(ids(hits), id)
	}
	eventually := func(what string, cond func() bool) {
		t.Helper()
		testenv.Eventually(t, time.Minute, func() error {
			if !cond() {
				return errors.New(what)
			}
			return nil
		})
	}
	start := time.Now()
	write(t, dir, "gentools/text/translate_markdown/api.py", `"""Translate a markdown document."""`)
	eventually("the new tool is not found", func() bool { return found("translate markdown", "gentools/text/translate_markdown") })
	t.Logf("a saved tool was found after %s", time.Since(start).Round(time.Millisecond))
	if err := os.Remove(filepath.Join(dir, "mcptools/weather/forecast.py")); err != nil {
		t.Fatal(err)
	}
	eventually("the removed tool is still found", func() bool { return !found("weather forecast", "mcptools/weather/forecast") })
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := toolsearch.Open(context.Background(), toolsearch.IndexOptions{Dir: dir, DBPath: db, Embedder: toolsearch.TestEmbedder{D: 64}, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if again.Len() != 4 {
		t.Fatalf("reopened index has %d tools", again.Len())
	}
	// Another embedder re-embeds everything on sync.
	other, err := toolsearch.Open(context.Background(), toolsearch.IndexOptions{Dir: dir, DBPath: db, Embedder: toolsearch.TestEmbedder{D: 32}})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	hits, err := other.Search(context.Background(), "translate markdown", toolsearch.ModeVector, 1)
	if err != nil || len(hits) != 1 || hits[0].ID != "gentools/text/translate_markdown" {
		t.Fatalf("after changing embedder: %v %v", ids(hits), err)
	}
}

var vocab = strings.Fields(`account address alert archive audio backup balance batch bill book branch bucket build cache calendar
	campaign card cart channel chart chat check city client cloud cluster code comment commit company config contact container
	contract cost country coupon course credit customer dashboard data database dataset deal deploy device document domain
	download draft email employee event expense export feed file flight folder form forecast game graph group hotel image
	invoice issue job key label lead ledger link list log map meeting message metric model movie note order package page
	payment photo pipeline playlist policy post price product profile project queue quote recipe record release report
	repository request review role route sale schedule secret sensor server session shipment song stock storage stream
	subscription survey task team template ticket token track trade transaction translation trip user video volume weather
	webhook wiki workflow`)

var verbs = strings.Fields(`get list create update delete search find fetch send sync export import archive restore
	summarize translate analyze validate approve cancel schedule upload download merge`)

// BenchmarkSearch5000 is a hybrid query (BM25 + vector, 3072-dimensional
// vectors, as Gemini's default) over 5,000 tools; it reports the median.
func BenchmarkSearch5000(b *testing.B) {
	for _, dim := range []int{768, 3072} {
		b.Run(fmt.Sprintf("dim=%d", dim), func(b *testing.B) {
			dir := b.TempDir()
			for i := range 5000 {
				v, n1, n2 := verbs[i%len(verbs)], vocab[(i/7)%len(vocab)], vocab[(i*13+5)%len(vocab)]
				write(b, dir, fmt.Sprintf("mcptools/server%02d/%s_%s_%d.py", i%50, v, n1, i),
					fmt.Sprintf("\"\"\"%s the %s of a %s.\n\nWorks with %s and %s records.\"\"\"\n", strings.ToUpper(v[:1])+v[1:], n1, n2, n2, vocab[(i*31)%len(vocab)]))
			}
			ix, err := toolsearch.Open(context.Background(), toolsearch.IndexOptions{
				Dir: dir, DBPath: filepath.Join(b.TempDir(), "search.db"), Embedder: toolsearch.TestEmbedder{D: dim},
			})
			if err != nil {
				b.Fatal(err)
			}
			defer ix.Close()
			if ix.Len() != 5000 {
				b.Fatalf("indexed %d", ix.Len())
			}
			queries := []string{"create an invoice for a customer", "weather forecast for a city", "send email message",
				"list pull requests of a repository", "export dataset to storage bucket"}
			durations := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				hits, err := ix.Search(context.Background(), queries[i%len(queries)], toolsearch.ModeHybrid, 5)
				if err != nil || len(hits) == 0 {
					b.Fatalf("search: %v %v", hits, err)
				}
				durations = append(durations, time.Since(start))
			}
			b.StopTimer()
			sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
			b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "ms-p50")
		})
	}
}
