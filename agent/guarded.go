package agent

import (
	"fmt"
	"path/filepath"
	"strings"
)

// guardFiles puts back the protected files (permissions.json, agent.json,
// the sandbox settings) that changed without an approval covering them
// (agent/protect), and tells the user which action did it: what, such as
// "This cell". It returns what was said, "" when nothing had changed.
func (a *Agent) guardFiles(emit func(Event), corr, what string) string {
	back, err := a.guard.Restore()
	meta := Meta{AgentID: a.id, CorrelationID: corr}
	if err != nil {
		a.opts.log.Warn("protected files not put back", "err", err)
		emit(&Notice{Meta: meta, Text: fmt.Sprintf("%s changed a protected file that could not be put back: %v. Check it before you go on.", what, err)})
	}
	if len(back) == 0 {
		return ""
	}
	names := make([]string, len(back))
	for i, f := range back {
		if rel, err := filepath.Rel(a.cfg.Dir, f); err == nil && !strings.HasPrefix(rel, "..") {
			f = rel
		}
		names[i] = f
	}
	text := fmt.Sprintf("%s changed %s, which decides what the agent may do without asking, and no approval covered it: it was put back as it was.", what, strings.Join(names, ", "))
	emit(&Notice{Meta: meta, Text: text})
	return text
}

// guardShell checks the protected files before a shell command of the
// running cell, unless the user approved a protected write in the cell
// already (the cell's end records it then).
func (a *Agent) guardShell(emit func(Event), corr, command string) {
	if a.guard == nil || a.approvals.ProtectedYes.Load() != a.guardYes.Load() {
		return
	}
	a.guardFiles(emit, corr, "The code before the shell command `"+command+"`")
}

// guarded runs a cell between two checks of the protected files: what
// changed them before it is put back, and so is what the cell changed
// unless the user approved a protected write while it ran. note is the
// line the cell's output gets for the model, "" when nothing changed.
func (a *Agent) guarded(emit func(Event), corr string, run func()) (note string) {
	if a.guard == nil {
		run()
		return ""
	}
	a.guardFiles(emit, corr, "Code that ran outside any action (a thread an earlier cell left running?)")
	yes := a.approvals.ProtectedYes.Load()
	a.guardYes.Store(yes)
	run()
	if a.approvals.ProtectedYes.Load() != yes {
		a.guard.Accept() // the user approved changing them
		return ""
	}
	return a.guardFiles(emit, corr, "This cell")
}
