package longsession

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"

	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/history"
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

// Loaded is one agent's conversation read back from a stored session.
type Loaded struct {
	History []model.Message
	// Cuts, Failed and Synthetic are its State's.
	Cuts      []Cut
	Failed    []FailedCompaction
	Synthetic []int
	// Repairs are what a crash left torn in the session's files, cut off
	// now and to be reported once.
	Repairs []session.Repair
}

// Load reads agent's conversation back from the stored session st: what a
// crash cut off is dropped (Repairs), calls left unanswered are answered
// as interrupted (Synthetic), and its compactions are placed in the
// history. A session the Python freeact wrote is logged as such.
func Load(st *session.Store[model.Message], agent string, log *slog.Logger) (Loaded, error) {
	var l Loaded
	var err error
	// Lines a crash cut off are dropped now, and said (Recover), once.
	if l.Repairs, err = st.Repair(); err != nil {
		return l, err
	}
	hist, err := st.Load(agent)
	if err != nil {
		return l, fmt.Errorf("resume session %s: %w", st.ID(), err)
	}
	if f := st.Format(agent); f != "" {
		log.Info("session written by the Python freeact: read, and continued in its format", "session", st.ID(), "format", f)
	}
	var pos []int // pos[i]: where message i of the file is in the history
	l.History, pos = history.AnswerDangling(hist, "Interrupted: the session ended before this tool call finished.")
	for i, j := 0, 0; i < len(l.History); i++ {
		if j < len(pos) && pos[j] == i {
			j++
			continue
		}
		l.Synthetic = append(l.Synthetic, i)
	}
	if l.Cuts, l.Failed, err = Resume(st, agent, len(hist), len(l.History), pos); err != nil {
		return l, fmt.Errorf("resume session %s: %w", st.ID(), err)
	}
	return l, nil
}
