package config

import (
	"strings"
	"testing"

	"github.com/freeact/desktop/internal/testenv"
)

// docs/behaviour.md says of each agent.json key whether a running agent
// takes it over at the next turn or needs a restart; restartKeys decides,
// and the two must agree.
func TestDocumentedRestartKeys(t *testing.T) {
	restart := map[string]bool{}
	for _, k := range restartKeys {
		restart[k.key] = true
	}
	for _, row := range testenv.DocTable(t, "docs/behaviour.md", "Configuration keys") {
		if len(row) < 3 {
			t.Fatalf("row %q has no \"applies from\" column", row)
		}
		key := strings.Trim(row[0], "`")
		want := "next turn"
		if restart[key] {
			want = "restart"
		}
		if row[2] != want {
			t.Errorf("docs/behaviour.md says %q applies from %q; Reconfigure makes it %q", key, row[2], want)
		}
		delete(restart, key)
	}
	for key := range restart {
		t.Errorf("restart key %q is not in the configuration table of docs/behaviour.md", key)
	}
}
