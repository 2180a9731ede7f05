package codeblock

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/freeact/desktop/agent/model"
)

// probeTimeout bounds asking the server: one that does not answer in time
// keeps tool calls.
const probeTimeout = 10 * time.Second

// Probe asks the server whether the model can call tools; known is false
// when the server does not say.
type Probe func(ctx context.Context) (tools, known bool)

// Auto returns m that writes code actions as python blocks when probe says
// the model has no tool calls, and uses tool calls otherwise. The server is
// asked once, on the first request.
func Auto(m model.Model, tool string, probe Probe) model.Model {
	return &auto{tools: m, blocks: Wrap(m, tool), probe: probe}
}

type auto struct {
	tools, blocks model.Model
	probe         Probe
	mu            sync.Mutex
	chosen        model.Model // nil until the server answered
}

func (a *auto) Name() string { return a.tools.Name() }

func (a *auto) AcceptsMedia(mimeType string) bool { return model.AcceptsMedia(a.tools, mimeType) }

// Stream asks the server first, unless it already has; an answer cut short
// by a cancelled request is asked again the next time.
func (a *auto) Stream(ctx context.Context, req *model.Request) iter.Seq2[model.Chunk, error] {
	a.mu.Lock()
	m := a.chosen
	if m == nil {
		m = a.tools
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		if tools, known := a.probe(pctx); known && !tools {
			m = a.blocks
		}
		cancel()
		if ctx.Err() == nil {
			a.chosen = m
		}
	}
	a.mu.Unlock()
	return m.Stream(ctx, req)
}

// ServerProbe asks an OpenAI-compatible server at baseURL (".../v1")
// whether its model name can call tools: llama.cpp's GET /props tells
// whether the chat template supports tool calls, Ollama's POST /api/show
// lists "tools" among the model's capabilities. Other servers answer
// neither, and the answer is unknown.
func ServerProbe(client *http.Client, baseURL, name string) Probe {
	if client == nil {
		client = http.DefaultClient
	}
	root := strings.TrimSuffix(strings.TrimRight(baseURL, "/"), "/v1")
	return func(ctx context.Context) (bool, bool) {
		var props struct {
			Caps map[string]bool `json:"chat_template_caps"`
		}
		if get(ctx, client, http.MethodGet, root+"/props", nil, &props) == nil && props.Caps != nil {
			tools, ok := props.Caps["supports_tool_calls"]
			return tools, ok
		}
		var show struct {
			Capabilities []string `json:"capabilities"`
		}
		body, _ := json.Marshal(map[string]string{"model": name})
		if get(ctx, client, http.MethodPost, root+"/api/show", body, &show) == nil && show.Capabilities != nil {
			return slices.Contains(show.Capabilities, "tools"), true
		}
		return false, false
	}
}

// get sends one small request and decodes its JSON answer.
func get(ctx context.Context, client *http.Client, method, url string, body []byte, v any) error {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: HTTP %d", method, url, resp.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v)
}
