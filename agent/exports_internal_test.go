package agent

import "github.com/freeact/desktop/agent/history"

// Writers of notes, for the tests of package agent_test that build
// conversations by hand.
var (
	ExportedEditedResult = history.EditedResult
	ExportedReplayPlan   = history.ReplayPlan
	ExportedUserCellNote = history.UserCellNote
	ExportedStateNote    = history.StateNote
)
