package shell

import "testing"

func TestWritesFiles(t *testing.T) {
	tests := []struct {
		command string
		want    bool
	}{
		{"cat a", false},
		{"cat a > b", true},
		{"cat a >> b", true},
		{"cat a >| b", true},
		{"cat a &> b", true},
		{"cat a &>> b", true},
		{"cat a <> b", true},
		{"cat a >& b", true},
		{"cat a > $OUT", true},
		{"cat a 2>&1", false},
		{"cat a 2>&-", false},
		{"cat a > /dev/null 2>&1", false},
		{"cat a 2>/dev/stderr", false},
		{"cat < a", false},
		{"cat < /dev/tcp/example.com/80", true},
		{"cat a 3<> /dev/udp/h/53", true},
		{"cat < $SOURCE", true}, // could be /dev/tcp/...
		{"cat <<EOF\nx\nEOF", false},
		{"echo $(cat a > b)", true},
		{"cat 'a > b'", false},
		{`cat "unterminated`, false},
	}
	for _, tt := range tests {
		if got := WritesFiles(tt.command); got != tt.want {
			t.Errorf("WritesFiles(%q) = %v, want %v", tt.command, got, tt.want)
		}
	}
}
