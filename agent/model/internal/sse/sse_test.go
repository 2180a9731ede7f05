package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestRead(t *testing.T) {
	tests := []struct{ in, want string }{
		{"data: a\n\ndata: b\n\n", "|a;|b"},
		{"event: ping\ndata: {}\r\n\r\n", "ping|{}"},
		{": comment\nid: 7\nretry: 10\ndata: x\n\n", "|x"},
		{"data: one\ndata: two\n\n", "|one\ntwo"},
		{"data:no-space\n\n", "|no-space"},
		// An event without data is dropped, its name with it; a last event
		// without a closing blank line still counts.
		{"event: lonely\n\ndata: last", "|last"},
		{"data:\n\n", "|"},
	}
	for _, tt := range tests {
		var got []string
		for ev, err := range Read(strings.NewReader(tt.in)) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ev.Name+"|"+string(ev.Data))
		}
		if strings.Join(got, ";") != tt.want {
			t.Errorf("Read(%q) = %q, want %q", tt.in, strings.Join(got, ";"), tt.want)
		}
	}
}

func TestReadError(t *testing.T) {
	boom := errors.New("connection reset by peer")
	var events []string
	var last error
	for ev, err := range Read(io.MultiReader(strings.NewReader("data: a\n\n"), iotest.ErrReader(boom))) {
		if err != nil {
			last = err
			break
		}
		events = append(events, string(ev.Data))
	}
	if !errors.Is(last, boom) || len(events) != 1 || events[0] != "a" {
		t.Errorf("events %q, err %v", events, last)
	}
}
