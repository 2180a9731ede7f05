package acp

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/freeact/desktop/agent/approval"
)

// Session modes: how the session's calls are approved.
const (
	// ModeAsk asks for every call; the saved rules allow nothing. The
	// default: an editor's user sees each call before it runs.
	ModeAsk = "ask"
	// ModeRules lets the workspace's saved rules (.freeact/permissions.json,
	// the window's Always answers) and the session's grants allow a call
	// at once, as the window and freeact run do.
	ModeRules = "rules"
	// ModeAuto is auto mode (docs/permissions.md): rules first, then what
	// the sandbox bounds and checkpoints undo, then the judge; whatever
	// none of them allows is asked.
	ModeAuto = "auto"
)

// defaultMode is the mode a session opens in.
const defaultMode = approval.Ask

var modes = []struct {
	id, name, desc string
	mode           approval.Mode
}{
	{ModeAsk, "Ask for everything", "every code action, command, tool call and file change is asked; saved rules are set aside", approval.Ask},
	{ModeRules, "Allow by the saved rules", "calls the workspace's saved permission rules allow run without asking; the rest are asked", approval.Rules},
	{ModeAuto, "Auto", "rules first; with the sandbox and checkpoints on, code runs without asking; a model judge answers the rest or asks you", approval.Auto},
}

func modeID(m approval.Mode) sdk.SessionModeId {
	for _, x := range modes {
		if x.mode == m {
			return sdk.SessionModeId(x.id)
		}
	}
	return sdk.SessionModeId(m.String())
}

// modeState is the session's modes as session/new, load and resume
// answer them.
func (ss *acpSession) modeState() *sdk.SessionModeState {
	st := &sdk.SessionModeState{CurrentModeId: modeID(ss.a.ApprovalMode())}
	for _, x := range modes {
		d := x.desc
		st.AvailableModes = append(st.AvailableModes, sdk.SessionMode{Id: sdk.SessionModeId(x.id), Name: x.name, Description: &d})
	}
	return st
}

// setMode switches the session's approval mode (from the next approval
// on, also inside a running turn) and tells the client.
func (ss *acpSession) setMode(ctx context.Context, id sdk.SessionModeId) error {
	for _, x := range modes {
		if string(id) == x.id {
			ss.a.SetApprovalMode(x.mode)
			ss.send(ctx, sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: id}})
			return nil
		}
	}
	return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown mode %q: use %q or %q", id, ModeAsk, ModeRules)})
}

// SetSessionMode switches how the session's calls are approved: ModeAsk
// or ModeRules.
func (s *Server) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	return sdk.SetSessionModeResponse{}, ss.setMode(ctx, p.ModeId)
}
