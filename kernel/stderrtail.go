package kernel

import "strings"

// benignStderr are warnings ipykernel and Jupyter print on every start,
// whatever happens next: a line holding one says nothing about why a
// kernel failed or died, so the messages that quote the kernel's output
// leave it out. "Kernel is running over TCP without encryption ... is
// susceptible to eavesdropping" is printed because the kernel listens on
// the loopback; nothing else can connect without the session key.
var benignStderr = []string{
	"Kernel is running over TCP without encryption",
}

// tail returns the last n lines the process wrote (stdout and stderr),
// without the known-benign warnings, for the messages that say why it
// stopped.
func (p *process) tail(n int) string {
	if p == nil || p.logTail == nil {
		return ""
	}
	return lastLines([]byte(withoutBenign(string(p.logTail.Bytes()))), n)
}

// withoutBenign drops the lines of out that hold a benignStderr warning.
func withoutBenign(out string) string {
	lines := strings.Split(out, "\n")
	kept := lines[:0]
	for _, l := range lines {
		benign := false
		for _, w := range benignStderr {
			if strings.Contains(l, w) {
				benign = true
				break
			}
		}
		if !benign {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}
