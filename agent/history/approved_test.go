package history

import (
	"testing"

	"github.com/freeact/desktop/agent/model"
)

// A resumed call's badge comes from its record: a code action's only
// from a record whose seal holds, any other call's from its response;
// a session written before calls kept it shows none.
func TestApprovedByComesFromTheRecord(t *testing.T) {
	sandbox := &model.Approved{By: "sandbox"}
	rule := &model.Approved{By: "rule", Rule: "FileWrite(notes.txt)"}
	holds := func(model.Ran, string) bool { return true }
	broken := func(model.Ran, string) bool { return false }
	for _, tc := range []struct {
		name  string
		r     model.FunctionResponse
		whole func(model.Ran, string) bool
		want  *model.Approved
	}{
		{"a sealed code action", model.FunctionResponse{ID: "c1", Ran: &model.Ran{Code: "x", Approved: sandbox}}, holds, sandbox},
		{"a code action whose seal fails", model.FunctionResponse{ID: "c1", Ran: &model.Ran{Code: "x", Approved: sandbox}}, broken, nil},
		{"a code action without a seal check", model.FunctionResponse{ID: "c1", Ran: &model.Ran{Code: "x", Approved: sandbox}}, nil, nil},
		{"a code action's badge outside its record", model.FunctionResponse{ID: "c1", Ran: &model.Ran{Code: "x"}, Approved: sandbox}, holds, nil},
		{"another call", model.FunctionResponse{ID: "w1", Approved: rule}, broken, rule},
		{"a call the user approved", model.FunctionResponse{ID: "w1"}, holds, nil},
		{"a code action of an older session", model.FunctionResponse{ID: "c1", Ran: &model.Ran{Code: "x"}}, holds, nil},
	} {
		if got := ApprovedBy(tc.r, tc.whole); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
