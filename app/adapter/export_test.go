package adapter

import (
	"strings"
	"testing"
)

// The export dialog proposes a file named after the conversation.
func TestExportName(t *testing.T) {
	for _, tt := range []struct{ title, want string }{
		{"Plot the sales of 2024!", "plot-the-sales-of-2024"},
		{"../../etc/passwd", "etc-passwd"},
		{"Größe prüfen", "größe-prüfen"},
		{"???", "session-ab12"},
		{strings.Repeat("word ", 30), strings.TrimSuffix(strings.Repeat("word-", 12), "-")},
	} {
		if got := ExportName(tt.title, "session-ab12"); got != tt.want {
			t.Errorf("ExportName(%q) = %q, want %q", tt.title, got, tt.want)
		}
	}
}
