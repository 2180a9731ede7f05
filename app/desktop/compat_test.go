package desktop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/internal/testenv"
)

// The settings panel over a workspace of freeact 0.11: the keys of
// config.toml are read-only, the note says where they come from, saving
// writes only this app's keys to agent.json and never touches config.toml,
// and the rules of permissions.toml are shown.
func TestSettingsPanelFreeact011(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte("name: no turns\nallow_unplayed: true\nturns: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, _, scratch := testDesktop(t)
	ws := testenv.FreeactFixture(t, "0.11.2")
	// testDesktop's agent.json: its python is kept, its enable_subagents
	// (a freeact key) is not read beside config.toml.
	if err := os.Rename(filepath.Join(scratch, ".freeact", config.AgentFile), filepath.Join(ws, ".freeact", config.AgentFile)); err != nil {
		t.Fatal(err)
	}
	tomlBefore, _ := os.ReadFile(filepath.Join(ws, ".freeact", config.ConfigTOML))
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()

	fields, err := d.Settings()
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]string{}
	for _, f := range fields {
		values[f.Key] = f.Value
		switch f.Key {
		case "model":
			if !f.ReadOnly || f.Value != `"google-gla:gemini-3.6-flash"` {
				t.Errorf("model field %+v", f)
			}
		case "python":
			if f.ReadOnly || f.Value != string(adapter.MustJSON(testenv.Python(t))) {
				t.Errorf("python field %+v", f)
			}
		case "tool_search":
			if !f.ReadOnly || f.Value != `"basic"` {
				t.Errorf("tool_search field %+v", f)
			}
		}
	}
	src, err := d.SettingsSource()
	if err != nil {
		t.Fatal(err)
	}
	if src.File != filepath.Join(".freeact", "config.toml") || !strings.Contains(src.Description, "config.toml (freeact 0.11)") ||
		!slices.ContainsFunc(src.Notes, func(n string) bool { return strings.Contains(n, "[terminal]") }) ||
		!slices.ContainsFunc(src.Notes, func(n string) bool { return strings.Contains(n, "enable_subagents not read") }) {
		t.Errorf("source %+v", src)
	}

	values["jupyter_token"] = `"tok"`
	values["max_subagents"] = "2" // read-only: not written
	if errs, err := d.SaveSettings(values); err != nil || len(errs) > 0 {
		t.Fatalf("save: %+v %v", errs, err)
	}
	var saved map[string]json.RawMessage
	data, _ := os.ReadFile(filepath.Join(ws, ".freeact", config.AgentFile))
	if err := json.Unmarshal(data, &saved); err != nil {
		t.Fatal(err)
	}
	if string(saved["jupyter_token"]) != `"tok"` || saved["max_subagents"] != nil || saved["model"] != nil || saved["sandbox"] != nil {
		t.Errorf("agent.json = %s", data)
	}
	if string(saved["enable_subagents"]) != "false" {
		t.Errorf("a key of agent.json the panel does not own was dropped: %s", data)
	}
	if tomlNow, _ := os.ReadFile(filepath.Join(ws, ".freeact", config.ConfigTOML)); string(tomlNow) != string(tomlBefore) {
		t.Error("config.toml was changed")
	}

	rules, err := d.Permissions()
	if err != nil {
		t.Fatal(err)
	}
	if rules.ImportedFile != filepath.Join(".freeact", "permissions.toml") || len(rules.Imported.Allow) == 0 || len(rules.Always.Allow) != 0 {
		t.Errorf("permissions: %s, %d imported, %d saved", rules.ImportedFile, len(rules.Imported.Allow), len(rules.Always.Allow))
	}
}
