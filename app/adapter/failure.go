package adapter

import "github.com/freeact/desktop/agent"

// FailureAdvice is what a Failed event tells the user in every front end:
// its summary and the fix, one sentence after the other; "" when the
// failure has no summary (its Error is then all there is).
func FailureAdvice(e *agent.Failed) string {
	switch {
	case e.Summary == "":
		return ""
	case e.Fix == "":
		return e.Summary
	}
	return e.Summary + " " + e.Fix
}
