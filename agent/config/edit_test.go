package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/internal/testenv"
)

func readAgentJSON(t *testing.T, ws string) map[string]json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(ws, FreeactDir, AgentFile))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return got
}

// Saving one tab's keys keeps the others as the file holds them; an
// invalid value writes nothing.
func TestSaveValues(t *testing.T) {
	ws := t.TempDir()
	writeAgentJSON(t, ws, `{"model": "openai:gpt-5", "max_subagents": 2}`)
	errs, err := SaveValues(ws, map[string]json.RawMessage{"execution_timeout": json.RawMessage("60"), "images_dir": json.RawMessage(`"out"`)}, LoadOptions{Lookup: noEnv})
	if err != nil || errs != nil {
		t.Fatalf("save: %v %v", errs, err)
	}
	got := readAgentJSON(t, ws)
	if string(got["model"]) != `"openai:gpt-5"` || string(got["max_subagents"]) != "2" || string(got["execution_timeout"]) != "60" || string(got["images_dir"]) != `"out"` {
		t.Errorf("agent.json = %v", got)
	}
	if _, ok := got["python"]; ok {
		t.Error("an app key at its default was written")
	}
	before, _ := os.ReadFile(filepath.Join(ws, FreeactDir, AgentFile))
	errs, err = SaveValues(ws, map[string]json.RawMessage{"execution_timeout": json.RawMessage(`"sixty"`), "max_subagents": json.RawMessage("0")}, LoadOptions{Lookup: noEnv})
	if err != nil || len(errs) != 2 || errs[0].Key != "execution_timeout" || errs[1].Key != "max_subagents" {
		t.Fatalf("invalid save: %v %v", errs, err)
	}
	if after, _ := os.ReadFile(filepath.Join(ws, FreeactDir, AgentFile)); string(after) != string(before) {
		t.Errorf("an invalid save changed the file:\n%s", after)
	}
	// A workspace without agent.json gets one.
	empty := t.TempDir()
	if errs, err := SaveValues(empty, map[string]json.RawMessage{"max_subagents": json.RawMessage("3")}, LoadOptions{Lookup: noEnv}); err != nil || errs != nil {
		t.Fatalf("save into a new workspace: %v %v", errs, err)
	}
	if got := readAgentJSON(t, empty); string(got["max_subagents"]) != "3" {
		t.Errorf("new agent.json = %v", got)
	}
}

// Saving over freeact 0.10's agent.json writes this app's own keys only
// when they are set, so freeact 0.10 still reads the file.
func TestSaveValuesKeepsFreeact010AgentJSON(t *testing.T) {
	ws := testenv.FreeactFixture(t, "0.10.12")
	existing := readAgentJSON(t, ws)
	values, src, err := RawSettings(ws)
	if err != nil || len(src.ReadOnly) > 0 {
		t.Fatalf("RawSettings: %v, read-only %v", err, src.ReadOnly)
	}
	for k, v := range DefaultValues() {
		if _, ok := values[k]; !ok {
			values[k] = v // the form sends every key of its tab
		}
	}
	values["max_subagents"] = json.RawMessage("3")
	if errs, err := SaveValues(ws, values, LoadOptions{Lookup: noEnv, APIKeys: map[string]string{"GEMINI_API_KEY": "k"}}); err != nil || errs != nil {
		t.Fatalf("save: %v %v", errs, err)
	}
	got := readAgentJSON(t, ws)
	for k := range got {
		if _, ok := existing[k]; !ok {
			t.Errorf("key %q added to freeact 0.10's agent.json", k)
		}
	}
	if string(got["max_subagents"]) != "3" || string(got["provider_settings"]) != "null" {
		t.Errorf("saved %v", got)
	}
	values["sandbox"] = json.RawMessage("true")
	if errs, err := SaveValues(ws, values, LoadOptions{Lookup: noEnv, APIKeys: map[string]string{"GEMINI_API_KEY": "k"}}); err != nil || errs != nil {
		t.Fatalf("save: %v %v", errs, err)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, FreeactDir, AgentFile)); !strings.Contains(string(data), `"sandbox": true`) {
		t.Errorf("a set app key was not written: %s", data)
	}
}

// A ${VAR} the workspace cannot replace is refused before anything is
// written: the workspace would not load. A stored key replaces it.
func TestSaveValuesChecksReferences(t *testing.T) {
	ws := t.TempDir()
	values := map[string]json.RawMessage{"kernel_env": json.RawMessage(`{"TOKEN": "${GITHUB_TOKEN}"}`)}
	errs, err := SaveValues(ws, values, LoadOptions{Lookup: noEnv})
	if err != nil || len(errs) != 1 || errs[0].Key != "kernel_env" || errs[0].Path != "TOKEN" || !strings.Contains(errs[0].Msg, "${GITHUB_TOKEN} is not set") {
		t.Fatalf("errors %v, %v", errs, err)
	}
	if _, err := os.Stat(filepath.Join(ws, FreeactDir, AgentFile)); err == nil {
		t.Fatal("agent.json was written")
	}
	write(t, filepath.Join(ws, DotEnvFile), "GITHUB_TOKEN=from-dotenv\n")
	if errs, err := SaveValues(ws, values, LoadOptions{Lookup: noEnv}); err != nil || errs != nil {
		t.Fatalf("with .env: %v %v", errs, err)
	}
	servers := map[string]json.RawMessage{"mcp_servers": json.RawMessage(`{"gh": {"url": "https://h", "headers": {"Authorization": "Bearer ${GH_PAT}"}}}`)}
	errs, _ = CheckReferences(ws, servers, LoadOptions{Lookup: noEnv})
	if len(errs) != 1 || errs[0].Path != "gh.headers.Authorization" {
		t.Fatalf("server reference: %v", errs)
	}
	if errs, _ := CheckReferences(ws, servers, LoadOptions{Lookup: noEnv, APIKeys: map[string]string{"GH_PAT": "p"}}); errs != nil {
		t.Fatalf("with a stored key: %v", errs)
	}
}
