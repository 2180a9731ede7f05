package acp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/freeact/desktop/app/internal/fronttest"
)

func optionValues(opts []sdk.SessionConfigOption) map[string]string {
	out := map[string]string{}
	for _, o := range opts {
		if o.Select != nil {
			out[string(o.Select.Id)] = string(o.Select.CurrentValue)
		}
	}
	return out
}

// TestACPConfigOptions: session/new offers the model and the thinking
// level; set_config_option changes what the next request to the model
// carries, for this session only (agent.json is not written), and
// refuses a value it did not offer.
func TestACPConfigOptions(t *testing.T) {
	bin := freeactBinary(t)
	ws, environ, _, fake := fronttest.EnvServer(t, `
turns:
  - reply: [{text: "one"}]
  - reply: [{text: "two"}]
`)
	before, _ := os.ReadFile(filepath.Join(ws, ".freeact", "agent.json"))
	p := startACP(t, bin, environ)
	p.initialize(t)
	resp, err := p.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v; stderr:\n%s", err, p.stderr.String())
	}
	id := resp.SessionId
	got := optionValues(resp.ConfigOptions)
	if got["model"] == "" || got["thinking_level"] == "" {
		t.Fatalf("session/new config options %v, want model and thinking_level", got)
	}
	set := func(opt, value string) (sdk.SetSessionConfigOptionResponse, error) {
		return p.conn.SetSessionConfigOption(context.Background(), sdk.SetSessionConfigOptionRequest{
			ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: id, ConfigId: sdk.SessionConfigId(opt), Value: sdk.SessionConfigValueId(value)}})
	}
	r, err := set("thinking_level", "low")
	if err != nil {
		t.Fatalf("set thinking_level low: %v", err)
	}
	if v := optionValues(r.ConfigOptions)["thinking_level"]; v != "low" {
		t.Errorf("thinking_level now %q, want low", v)
	}
	if _, err := p.prompt(t, id, "one?"); err != nil {
		t.Fatalf("prompt 1: %v", err)
	}
	reqs := fake.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), `"thinkingLevel":"LOW"`) {
		t.Fatalf("first request does not ask for low thinking:\n%s", reqs[len(reqs)-1].Body)
	}

	r, err = set("model", "gemini-2.5-flash")
	if err != nil {
		t.Fatalf("set model: %v", err)
	}
	after := optionValues(r.ConfigOptions)
	if after["model"] != "gemini-2.5-flash" {
		t.Errorf("model now %q", after["model"])
	}
	if _, ok := after["thinking_level"]; ok {
		t.Errorf("Gemini 2.5 offered a thinking level: %v", after)
	}
	if _, err := p.prompt(t, id, "two?"); err != nil {
		t.Fatalf("prompt 2: %v", err)
	}
	reqs = fake.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[1].Model, "gemini-2.5-flash") {
		t.Errorf("second request's model %q, want gemini-2.5-flash", reqs[len(reqs)-1].Model)
	}

	if _, err := set("model", "openai:gpt-5"); err == nil {
		t.Error("a model of another provider, not offered, was taken")
	}
	if _, err := set("temperature", "2"); err == nil || !strings.Contains(err.Error(), "unknown config option") {
		t.Errorf("unknown option: %v", err)
	}
	if now, _ := os.ReadFile(filepath.Join(ws, ".freeact", "agent.json")); string(now) != string(before) {
		t.Errorf("agent.json changed:\n%s", now)
	}
}
