package adapter

import (
	"testing"

	"github.com/freeact/desktop/kernel"
)

// A Hub's steps are shown as they are, provisioning's under its heading.
func TestProgressTextNamesWhatIsBeingSetUp(t *testing.T) {
	tests := []struct{ step, want string }{
		{"creating the environment", "Setting up Python: creating the environment"},
		{"JupyterHub: pulling the image", "JupyterHub: pulling the image"},
	}
	for _, tc := range tests {
		if got := ProgressText(kernel.Progress{Step: tc.step}); got != tc.want {
			t.Errorf("ProgressText(%q) = %q, want %q", tc.step, got, tc.want)
		}
	}
}
