package gemini_test

import (
	"fmt"
	"testing"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/gemini"
	"github.com/freeact/desktop/agent/model/modeltest"
)

// BenchmarkStream measures one streamed request of 200 text events through
// the real genai client against the local fake server: the overhead our
// layer and genai add per model call and per event.
func BenchmarkStream(b *testing.B) {
	const events = 200
	turn := modeltest.Turn{Usage: &modeltest.Usage{Input: 10, Output: events}}
	for i := range events {
		turn.Reply = append(turn.Reply, modeltest.ReplyPart{Text: fmt.Sprintf("word%d ", i)})
	}
	sc := modeltest.Scenario{Name: "bench", AllowUnplayed: true, Turns: make([]modeltest.Turn, 50000)}
	for i := range sc.Turns {
		sc.Turns[i] = turn
	}
	srv := modeltest.NewGemini(b, sc)
	be, err := gemini.New(b.Context(), gemini.Config{Model: "gemini-3-flash-preview", APIKey: "k", BaseURL: srv.URL()})
	if err != nil {
		b.Fatal(err)
	}
	m := model.New(be, model.RetryPolicy{MaxAttempts: 1})
	req := &model.Request{Messages: []model.Message{model.UserText("go")}}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		for c, err := range m.Stream(b.Context(), req) {
			if err != nil {
				b.Fatal(err)
			}
			if d, ok := c.(model.Done); ok && len(d.Message.Text()) < events*5 {
				b.Fatalf("short reply %q", d.Message.Text())
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(n*events), "µs/event")
}
