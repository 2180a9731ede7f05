package longsession

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/session"
)

// Resume reads the compactions of agent in the stored session st, and
// its failed "Compact now"s, placed in its history: fileLen is the number
// of the agent's messages in the file, histLen the history's length, and
// pos[i] where message i of the file is in the history.
func Resume(st *session.Store[model.Message], agent string, fileLen, histLen int, pos []int) ([]Cut, []FailedCompaction, error) {
	comps, err := st.Compactions(agent)
	if err != nil {
		return nil, nil, err
	}
	var cuts []Cut
	for _, c := range comps {
		if c.Upto < 0 || c.Upto > fileLen {
			return nil, nil, fmt.Errorf("a compaction covers %d messages of %d", c.Upto, fileLen)
		}
		upto := histLen
		if c.Upto < len(pos) {
			upto = pos[c.Upto]
		}
		cuts = append(cuts, Cut{Upto: upto, Summary: c.Summary, Model: c.Model, Usages: UsagesOf(c.Usage), Event: event.Compacted{
			Meta: event.Meta{AgentID: agent}, Reason: c.Reason, Summary: c.Summary, TokensBefore: c.TokensBefore, TokensAfter: c.TokensAfter,
		}})
	}
	spent, err := st.Spent()
	if err != nil {
		return nil, nil, err
	}
	var failed []FailedCompaction
	for _, sp := range spent {
		var f event.Failed
		if sp.Agent != agent || len(sp.Failed) == 0 || json.Unmarshal(sp.Failed, &f) != nil {
			continue
		}
		for i := range failed {
			failed[i].Retried = true // this one came after it
		}
		at := histLen
		if sp.At < len(pos) {
			at = pos[sp.At]
		}
		retried := slices.ContainsFunc(comps, func(c session.Compaction) bool {
			return c.Reason == CompactManual && c.Meta.TS > sp.Meta.TS // the same UTC layout sorts by time
		})
		failed = append(failed, FailedCompaction{Index: at, Failed: f, Model: sp.Model, Usage: UsagesOf(sp.Usage), Retried: retried})
	}
	for i := range cuts {
		prev := 0
		if i > 0 {
			prev = cuts[i-1].Upto
		}
		cuts[i].Event.Messages = cuts[i].Upto - prev
	}
	return cuts, failed, nil
}
