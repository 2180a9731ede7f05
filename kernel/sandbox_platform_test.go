package kernel

import (
	"strings"
	"testing"
)

// TestSandboxNeedsLinux: sandbox mode refuses every system but Linux with
// an error that names the system and says how to run without it.
func TestSandboxNeedsLinux(t *testing.T) {
	for _, c := range []struct {
		goos string
		ok   bool
	}{{"linux", true}, {"windows", false}, {"darwin", false}, {"freebsd", false}} {
		t.Run(c.goos, func(t *testing.T) {
			err := sandboxSupported(c.goos)
			if c.ok {
				if err != nil {
					t.Fatalf("sandbox refused on %s: %v", c.goos, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("sandbox accepted on %s", c.goos)
			}
			for _, want := range []string{"needs Linux (bubblewrap)", c.goos, `"sandbox": false`} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}
