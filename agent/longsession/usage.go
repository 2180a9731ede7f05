package longsession

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/freeact/desktop/agent/model"
)

// UsagesOf reads a stored list of usages; nil when there is none.
func UsagesOf(raw json.RawMessage) []model.Usage {
	var us []model.Usage
	if len(raw) == 0 || json.Unmarshal(raw, &us) != nil {
		return nil
	}
	return us
}

// BudgetStopText ends a turn stopped at the budget.
func BudgetStopText(spent, budget float64) string {
	return fmt.Sprintf("Stopped before the next model call: this session has cost %s of its %s budget (max_cost_per_session). "+
		"Send a message and continue to raise the budget.", FormatUSD(spent), FormatUSD(budget))
}

// FormatUSD writes an amount of US dollars: cents above a dollar, else
// up to four decimals ($12.35, $0.015, $0.0323).
func FormatUSD(v float64) string {
	if v >= 1 || v == 0 {
		return fmt.Sprintf("$%.2f", v)
	}
	s := strings.TrimRight(fmt.Sprintf("%.4f", v), "0")
	if i := strings.IndexByte(s, '.'); len(s)-i < 3 {
		s += strings.Repeat("0", 3-(len(s)-i))
	}
	return "$" + s
}

// UsageJSON encodes the usages of a compaction's calls.
func UsageJSON(us []model.Usage) json.RawMessage {
	if len(us) == 0 {
		return nil
	}
	b, _ := json.Marshal(us) // plain structs of ints
	return b
}
