package main

import (
	"bytes"
	"image/png"
	"testing"
)

// The window icon must be small enough for GDK to set it on the window:
// at 1024×1024 it left the window without one (_NET_WM_ICON missing).
func TestWindowIconSize(t *testing.T) {
	cfg, err := png.DecodeConfig(bytes.NewReader(windowIcon))
	if err != nil {
		t.Fatalf("build/windowicon.png: %v", err)
	}
	if cfg.Width != cfg.Height || cfg.Width < 64 || cfg.Width > 256 {
		t.Errorf("window icon %d×%d, want a square of 64 to 256 pixels", cfg.Width, cfg.Height)
	}
}
