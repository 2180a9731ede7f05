package record_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/model/modeltest/record"
)

// The relay passes the server's bytes through unchanged and keeps them;
// saved and loaded, the fixture replays the same bytes, whole or split.
func TestRelayRecordsAndReplays(t *testing.T) {
	body := "data: {\"choices\":[{\"delta\":{\"content\":\"h\\u00e9\"}}]}\n\ndata: [DONE]\n\n"
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/chat/completions" || string(got) != `{"stream":true}` {
			http.Error(w, "unexpected "+r.URL.Path+" "+string(got), http.StatusTeapot)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, part := range strings.SplitAfter(body, "\n\n") {
			_, _ = io.WriteString(w, part)
			w.(http.Flusher).Flush()
		}
	}))
	defer upstream.Close()
	relay := record.NewRelay(upstream.URL)
	defer relay.Close()
	resp, err := http.Post(relay.URL()+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != body || resp.StatusCode != 200 {
		t.Fatalf("through the relay: %d %q", resp.StatusCode, got)
	}
	// The exchange is recorded once the relay has finished its response,
	// which can be after the client has read it all: wait for it.
	f := <-relay.Recorded()
	if f.Path != "/v1/chat/completions" || string(f.Body) != `{"stream":true}` ||
		f.Status != 200 || f.ContentType != "text/event-stream" || f.Response != body {
		t.Fatalf("recorded %+v", f)
	}
	f.Server, f.Model, f.Shows = "test server 1", "test model", "a text reply"
	path := filepath.Join(t.TempDir(), "f.json")
	if err := record.Save(path, f); err != nil {
		t.Fatal(err)
	}
	loaded, err := record.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, split := range []int{0, 1, 7} {
		srv := record.Replay(t, loaded, split)
		resp, err := http.Post(srv.URL, "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !bytes.Equal(got, []byte(body)) || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Errorf("replay split %d: %q", split, got)
		}
	}
}

// Bytes that are not UTF-8 are kept exactly, as base64.
func TestFixtureKeepsBinary(t *testing.T) {
	raw := []byte{0xff, 0x00, 'a'}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(raw) }))
	defer upstream.Close()
	relay := record.NewRelay(upstream.URL)
	defer relay.Close()
	resp, err := http.Get(relay.URL() + "/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	f := <-relay.Recorded()
	f.Server, f.Model = "s", "m"
	path := filepath.Join(t.TempDir(), "f.json")
	if err := record.Save(path, f); err != nil {
		t.Fatal(err)
	}
	loaded, err := record.Load(path)
	if err != nil || !bytes.Equal(loaded.Bytes(), raw) {
		t.Errorf("loaded %q, %v; want %q", loaded.Bytes(), err, raw)
	}
}

// A fixture that does not name its server and model is refused.
func TestLoadNeedsProvenance(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.json")
	if err := record.Save(path, record.Fixture{Status: 200}); err != nil {
		t.Fatal(err)
	}
	if _, err := record.Load(path); err == nil || !strings.Contains(err.Error(), "server, model and status are required") {
		t.Errorf("Load of a fixture without provenance: %v", err)
	}
}
