package agent

import (
	"github.com/freeact/desktop/agent/failure"
	"github.com/freeact/desktop/agent/model"
)

// How a failed turn or start is described lives in agent/failure; these
// aliases keep its SDK names reachable as agent.StartError, ... .
type (
	MissingKeyError = failure.MissingKeyError
	StartError      = failure.StartError
)

// failure describes err, which ended a turn, as a Failed event
// (failure.Describe).
func (a *Agent) failure(err error) *Failed {
	spec, _ := model.ParseModelString(a.cfg.Options.Model)
	f := failure.Describe(err, spec, failure.BaseURL(spec, a.cfg.Env.Getenv))
	f.Meta = Meta{AgentID: a.id}
	return f
}
