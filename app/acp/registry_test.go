package acp_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/freeact/desktop/internal/strictjson"
)

// TestRegistryManifest checks the ACP Registry manifest kept in the
// repository: the registry's fields, the version of this release, and a
// command that starts freeact acp.
func TestRegistryManifest(t *testing.T) {
	root := filepath.Join("..", "..")
	raw, err := os.ReadFile(filepath.Join(root, "build", "acp", "agent.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		ID           string   `json:"id"`
		Name         string   `json:"name"`
		Version      string   `json:"version"`
		Description  string   `json:"description"`
		Authors      []string `json:"authors"`
		License      string   `json:"license"`
		Distribution struct {
			Binary map[string]struct {
				Archive string   `json:"archive"`
				Cmd     string   `json:"cmd"`
				Args    []string `json:"args"`
			} `json:"binary"`
		} `json:"distribution"`
	}
	if err := strictjson.Unmarshal(raw, &m); err != nil {
		t.Fatalf("build/acp/agent.json: %v", err)
	}
	version, err := os.ReadFile(filepath.Join(root, "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`).MatchString(m.ID) || m.Name == "" || m.Description == "" || len(m.Authors) == 0 {
		t.Errorf("manifest fields: %+v", m)
	}
	if m.Version != strings.TrimSpace(string(version)) {
		t.Errorf("manifest version %q, VERSION says %q", m.Version, strings.TrimSpace(string(version)))
	}
	if m.License != "Apache-2.0" {
		t.Errorf("license %q, LICENSE is Apache-2.0", m.License)
	}
	if len(m.Distribution.Binary) == 0 {
		t.Fatal("no binary distribution")
	}
	for platform, b := range m.Distribution.Binary {
		if !slices.Contains([]string{"linux-x86_64", "linux-aarch64"}, platform) {
			t.Errorf("platform %q: freeact is built for Linux", platform)
		}
		if !slices.Equal(b.Args, []string{"acp"}) || filepath.Base(b.Cmd) != "freeact" || !strings.Contains(b.Archive, m.Version) {
			t.Errorf("%s: %+v does not start freeact acp of this version", platform, b)
		}
	}
	// The archive make package-acp builds (scripts/package-acp.sh, which
	// checks the built one against the manifest too) is the one named.
	script, err := os.ReadFile(filepath.Join(root, "scripts", "package-acp.sh"))
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile(`(?m)^name="([^"]+)"$`).FindSubmatch(script)
	if named == nil {
		t.Fatal(`scripts/package-acp.sh: no name="..." line`)
	}
	built := strings.ReplaceAll(string(named[1]), "${release}", m.Version)
	if got := m.Distribution.Binary["linux-x86_64"].Archive; got != built {
		t.Errorf("the manifest names %q, make package-acp builds %q", got, built)
	}
}
