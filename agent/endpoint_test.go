package agent_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/agent/modelopen"
)

// A custom base URL gets the key its provider_settings assign
// (api_key_env), never OPENAI_API_KEY; an unset variable says which.
func TestCustomEndpointGetsItsOwnKey(t *testing.T) {
	sc := mustScenario(t, "turns:\n  - reply: [{text: \"Hi.\"}]\n")
	fake := modeltest.NewOpenAI(t, sc)
	t.Setenv("OPENAI_API_KEY", "sk-openai-secret")
	t.Setenv("LOCAL_SERVER_KEY", "local-key")
	ws := workspace(t, `{"model": "`+fake.URL()+`/v1#local", "provider_settings": {"api_key_env": "LOCAL_SERVER_KEY"}}`)
	a := started(t, ws, fakeKernels(nil).executors(t))
	events := run(t, a, "Hello.", nil)
	if r := of[*agent.Response](events); len(r) != 1 || r[0].Text != "Hi." {
		t.Fatalf("turn:%s", describe(events))
	}
	if key := fake.Requests()[0].APIKey; key != "local-key" {
		t.Errorf("the server got the key %q, want its own", key)
	}

	t.Setenv("LOCAL_SERVER_KEY", "")
	var missing *agent.MissingKeyError
	if err := modelopen.Check(load(t, ws)); !errors.As(err, &missing) || missing.KeyEnv != "LOCAL_SERVER_KEY" {
		t.Errorf("CheckModel with the variable unset = %v, want it named", err)
	}
	ws = workspace(t, `{"model": "http://gpu-box.lan:8000/v1#local", "provider_settings": {"api_key": "plain-secret"}}`)
	if err := modelopen.Check(load(t, ws)); err != nil {
		t.Fatalf("CheckModel: %v", err)
	}
	a2, err := agent.New(load(t, ws), fakeKernels(nil).executors(t))
	if err != nil {
		t.Fatal(err)
	}
	err = a2.Start(t.Context())
	t.Cleanup(func() { _ = a2.Stop() })
	if err == nil || !strings.Contains(err.Error(), "plain HTTP") || strings.Contains(err.Error(), "plain-secret") {
		t.Errorf("start with a key over plain HTTP to another host: %v", err)
	}
}
