package agent

import (
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/longsession"
)

// What a long session needs besides the agent's state (estimating and
// splitting for compaction, the summarising prompt, usage and budget
// texts, forks) lives in agent/longsession; these aliases keep its SDK
// names reachable as agent.HistoryCompaction, agent.ForkSession, ... .

type (
	SummaryCutError   = longsession.SummaryCutError
	HistoryCompaction = longsession.HistoryCompaction
	FailedCompaction  = longsession.FailedCompaction
)

// Compaction reasons.
const (
	CompactThreshold = longsession.CompactThreshold
	CompactOverflow  = longsession.CompactOverflow
	CompactManual    = longsession.CompactManual
)

// ErrNothingToCompact is longsession.ErrNothingToCompact.
var ErrNothingToCompact = longsession.ErrNothingToCompact

// FormatUSD is longsession.FormatUSD.
func FormatUSD(v float64) string { return longsession.FormatUSD(v) }

// ForkSession is longsession.ForkSession.
func ForkSession(cfg *config.Config, src string, turn int) (string, Prompt, error) {
	return longsession.ForkSession(cfg, src, turn)
}

// CopySession is longsession.CopySession.
func CopySession(cfg *config.Config, src string) (string, error) {
	return longsession.CopySession(cfg, src)
}
