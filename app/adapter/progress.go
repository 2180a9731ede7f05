package adapter

import (
	"strings"

	"github.com/freeact/desktop/kernel"
	"github.com/freeact/desktop/kernel/hub"
)

// ProgressText is how the window and the terminal show a step of getting
// the kernel's Python ready: provisioning a local environment, or a
// JupyterHub starting the user's server (its steps name the Hub already).
func ProgressText(p kernel.Progress) string {
	if strings.HasPrefix(p.Step, hub.ProgressPrefix) {
		return p.Step
	}
	return "Setting up Python: " + p.Step
}
