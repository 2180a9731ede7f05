package kernel

import (
	"strings"
	"testing"
)

func TestSmoke(t *testing.T) {
	for name, py := range pythons(t) {
		t.Run(name, func(t *testing.T) {
			s := sharedServer(t, py)
			k := startKernel(t, s, KernelOptions{Host: &testHost{}})
			res := run(t, k, "x = 41\nprint('hi')\nx+1")
			if !strings.Contains(res.Text, "hi\n") || !strings.Contains(res.Text, "42") {
				t.Fatalf("text %q", res.Text)
			}
			res = run(t, k, "!echo shell-{x}")
			t.Logf("%q", res.Text)
		})
	}
}
