package adapter

import (
	"strings"
	"unicode"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/export"
	"github.com/freeact/desktop/agent/notebook"
	"github.com/freeact/desktop/internal/appdirs"
)

// ExportExt is the file name extension of each export format.
var ExportExt = map[string]string{export.FormatNotebook: ".ipynb", export.FormatMarkdown: ".md", export.FormatHTML: ".html"}

// Export writes the saved session id of the workspace of cfg in format
// (export.FormatNotebook, FormatMarkdown or FormatHTML), with the model's
// thoughts when thoughts is set, reading checkpoints and keys from the
// app's folders.
func Export(cfg *config.Config, id, format string, thoughts bool, dirs appdirs.Dirs) ([]byte, error) {
	return export.ExportSession(cfg, id, format, notebook.Options{Thoughts: thoughts}, export.Stores{Checkpoints: dirs.Checkpoints(), Keys: dirs.Config})
}

// ExportName is a file name (without extension) made of a conversation's
// title: its words joined by "-", without characters file systems or
// shells trip on, at most 60 characters; fallback when nothing is left.
func ExportName(title, fallback string) string {
	var b strings.Builder
	for _, word := range strings.FieldsFunc(strings.ToLower(title), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if b.Len() > 0 && b.Len()+1+len(word) > 60 {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteString(word)
	}
	if b.Len() == 0 {
		return fallback
	}
	return b.String()
}
