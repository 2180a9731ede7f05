package oauth

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// metadataCase is one entry of testdata/metadata_corpus.yaml.
type metadataCase struct {
	Name    string         `yaml:"name"`
	Kind    string         `yaml:"kind"`
	Doc     map[string]any `yaml:"doc"`
	Refused string         `yaml:"refused"`
}

// TestMetadataCorpus parses each document of the corpus and checks that
// it is refused with the error the case names, or accepted.
func TestMetadataCorpus(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "metadata_corpus.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []metadataCase
	if err := yaml.Unmarshal(data, &cases); err != nil {
		t.Fatalf("the corpus is not valid: %v", err)
	}
	if len(cases) == 0 {
		t.Fatal("the corpus has no cases")
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			doc, err := json.Marshal(tc.Doc)
			if err != nil {
				t.Fatal(err)
			}
			switch tc.Kind {
			case "server":
				_, err = ParseServerMetadata(doc)
			case "resource":
				_, err = ParseResourceMetadata(doc)
			default:
				t.Fatalf("kind %q is neither server nor resource", tc.Kind)
			}
			switch {
			case tc.Refused == "" && err != nil:
				t.Errorf("%s refused: %v", doc, err)
			case tc.Refused != "" && (err == nil || !strings.Contains(err.Error(), tc.Refused)):
				t.Errorf("%s: error %v, want one with %q", doc, err, tc.Refused)
			}
		})
	}
}
