package terminal

import (
	"fmt"
	"github.com/freeact/desktop/agent/longsession"
	"strings"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/approval"
)

// autoCommand is /auto: it turns auto mode on (again, after its breaker
// paused it) or off (/auto off); /auto alone toggles. In --json mode the
// answer is a CommandOutput event.
func (t *terminal) autoCommand(a *agent.Agent, line string) {
	arg := strings.TrimSpace(strings.TrimPrefix(line, "/auto"))
	on := a.ApprovalMode() != approval.Auto || a.AutoPaused()
	switch arg {
	case "on":
		on = true
	case "off":
		on = false
	case "":
	default:
		t.say("/auto", fmt.Sprintf("/auto takes on or off, not %q.\n", arg))
		return
	}
	if !on {
		a.SetApprovalMode(approval.Rules)
		t.say("/auto", "Auto mode is off: calls your saved rules do not allow are asked.\n")
		return
	}
	a.SetApprovalMode(approval.Auto)
	t.say("/auto", autoText(a.Sandboxed()))
}

// autoText says what auto mode does now.
func autoText(sandboxed bool) string {
	if !sandboxed {
		return "Auto mode is on, but the sandbox is off: nothing runs on the sandbox's word, the judge decides every call your rules leave open (--sandbox turns the sandbox on).\n"
	}
	return "Auto mode is on: code runs in the sandbox without asking (/undo reverts it); the judge decides other calls your rules leave open, and asks you when unsure.\n"
}

// judgeLine is the judge's calls of a turn, on a line of their own; ""
// when it was not asked.
func (t *terminal) judgeLine() string {
	if t.judgeCalls == 0 {
		return ""
	}
	line := fmt.Sprintf("↳ auto mode judge: %d calls · %d in · %d out", t.judgeCalls, t.judgeTokens[0], t.judgeTokens[1])
	if t.judgePriced {
		line += " · " + longsession.FormatUSD(t.judgeCost)
	}
	if su := t.session; su != nil && su.JudgeCalls > t.judgeCalls {
		line += fmt.Sprintf(" · session %d calls", su.JudgeCalls)
		if su.JudgeCost > 0 {
			line += " · " + longsession.FormatUSD(su.JudgeCost)
		}
	}
	return line
}

// countJudge adds a judge call's usage to the turn's judge line.
func (t *terminal) countJudge(e *agent.Usage) {
	t.judgeCalls++
	t.judgeTokens[0] += e.InputTokens
	t.judgeTokens[1] += e.OutputTokens + e.ThinkingTokens
	if e.Cost != nil {
		t.judgeCost += *e.Cost
		t.judgePriced = true
	}
}

// resetJudge starts a turn's judge line.
func (t *terminal) resetJudge() {
	t.judgeCalls, t.judgeTokens, t.judgeCost, t.judgePriced = 0, [2]int{}, 0, false
}
