package desktop

import (
	"encoding/json"
	"testing"

	"github.com/freeact/desktop/internal/testenv"
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
	// A change that is meant: -update, then check the frontend's settings
	// tests, which render from this file.
	testenv.Golden(t, settingsGolden, append(got, '\n'))
}
