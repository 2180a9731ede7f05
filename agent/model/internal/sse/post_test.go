package sse

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		in       string
		min, max time.Duration
	}{
		{"", 0, 0},
		{"2", 2 * time.Second, 2 * time.Second},
		{"0.5", 500 * time.Millisecond, 500 * time.Millisecond},
		{"-1", 0, 0},
		{"soon", 0, 0},
		{time.Now().Add(time.Hour).UTC().Format(http.TimeFormat), 58 * time.Minute, time.Hour},
		{time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat), 0, 0},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.in); got < tt.min || got > tt.max {
			t.Errorf("retryAfter(%q) = %v, want %v to %v", tt.in, got, tt.min, tt.max)
		}
	}
}
