package terminal

import (
	"github.com/freeact/desktop/agent/longsession"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
)

// Each call auto mode ran without a click says why on its badge line;
// a judge's reason stays on one visible line.
func TestAutoBadgeSaysWhy(t *testing.T) {
	for _, tc := range []struct {
		by, reason, want string
	}{
		{agent.BySandbox, "", "runs in the sandbox"},
		{agent.ByReadOnly, "", "read-only tool of a server you trusted"},
		{agent.ByJudge, "the user asked\nfor it", "the judge allowed it: the user asked"},
	} {
		got := approvedBy(&agent.AutoApproved{By: tc.by, Reason: tc.reason})
		if !strings.Contains(got, tc.want) || strings.Contains(got, "\n") || strings.Contains(got, "saved rule") {
			t.Errorf("by %s: %q, want it to say %q on one line", tc.by, got, tc.want)
		}
	}
}

// The judge's calls are a line of their own, not in the turn's tokens.
func TestJudgeUsageOnALineOfItsOwn(t *testing.T) {
	tm := &terminal{}
	cost := 0.25
	tm.countJudge(&agent.Usage{Judge: true, Cost: &cost})
	if l := tm.judgeLine(); !strings.Contains(l, "judge: 1 calls") || !strings.Contains(l, longsession.FormatUSD(cost)) {
		t.Errorf("judge line %q", l)
	}
	if tm.turnTokens != [3]int{} || tm.turnCost != 0 {
		t.Errorf("the judge's call counted in the turn: %v %v", tm.turnTokens, tm.turnCost)
	}
	tm.resetJudge()
	if tm.judgeLine() != "" {
		t.Error("the judge line survived the turn's reset")
	}
}

// The judge line also says what the session's judge calls cost so far,
// earlier turns and runs included.
func TestJudgeLineShowsTheSessionsJudgeCost(t *testing.T) {
	tm := &terminal{}
	cost := 0.25
	tm.countJudge(&agent.Usage{Judge: true, Cost: &cost})
	tm.show(&agent.SessionUsage{Cost: 2, JudgeCost: 0.75, JudgeCalls: 3})
	if l := tm.judgeLine(); !strings.Contains(l, "session 3 calls · "+longsession.FormatUSD(0.75)) {
		t.Errorf("judge line %q, want the session's 3 judge calls and their cost", l)
	}
}
