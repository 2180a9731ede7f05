package agent

// Writers of notes, for the tests of package agent_test that build
// conversations by hand.
var (
	ExportedEditedResult = editedResult
	ExportedReplayPlan   = replayPlan
	ExportedUserCellNote = userCellNote
	ExportedStateNote    = stateNote
)
