package history

import "github.com/freeact/desktop/agent/model"

// ApprovedBy returns who let the call of r run without a click, as its
// record says, for the badge of a resumed conversation: a code action's
// comes from its sealed record (model.Ran) and only when whole says the
// seal holds, so that a changed session file shows no badge rather than
// a forged one; any other call's from the response. nil: the user
// approved it, or the session was written before calls kept it.
func ApprovedBy(r model.FunctionResponse, whole func(model.Ran, string) bool) *model.Approved {
	if r.Ran == nil {
		return r.Approved
	}
	if r.Ran.Approved == nil || whole == nil || !whole(*r.Ran, r.ID) {
		return nil
	}
	return r.Ran.Approved
}
