package app

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// settingsGolden is what the settings panel is built from for a workspace
// of defaults: every key's metadata, value and default, and the schema
// (providers, model settings, server bounds). The frontend's component
// tests render from it, so a key added on the Go side reaches them, and a
// change of shape on either side fails.
const settingsGolden = "testdata/settings-form.json"

func TestSettingsFormGolden(t *testing.T) {
	fields, err := readSettings(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(map[string]any{"fields": fields, "schema": (&Desktop{}).SettingsSchema()}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(settingsGolden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(settingsGolden)
	if err != nil {
		t.Fatalf("%v (run go test ./app -run TestSettingsFormGolden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the settings form's data changed; if that is meant, run go test ./app -run TestSettingsFormGolden -update and check the frontend's settings tests")
	}
}
