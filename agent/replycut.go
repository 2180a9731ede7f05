package agent

import (
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/model"
)

// replyCut is the event of a reply cut at the output token limit.
func (a *Agent) replyCut(msg model.Message, cut []model.FunctionCall) *ReplyCut {
	var dropped []string
	for _, c := range cut {
		dropped = append(dropped, c.Name)
	}
	maxTokens := 0
	if mt := a.cfg.Options.ModelSettings.MaxTokens; mt != nil {
		maxTokens = *mt
	}
	return history.NewReplyCut(a.id, msg, maxTokens, dropped)
}
