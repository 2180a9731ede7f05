package agent

import "github.com/freeact/desktop/agent/approval"

// WithApprovalMode starts the agent in mode m: approval.Rules (the
// default), approval.Ask or approval.Auto (see docs/permissions.md).
func WithApprovalMode(m approval.Mode) Option { return func(o *options) { o.approvalMode = m } }

// SetApprovalMode sets the conversation's approval mode; its subagents
// share it. Setting approval.Auto again resumes auto mode after its
// breaker paused it.
func (a *Agent) SetApprovalMode(m approval.Mode) { a.approvals.State.SetMode(m) }

// ApprovalMode returns the conversation's approval mode.
func (a *Agent) ApprovalMode() approval.Mode { return a.approvals.State.Mode() }

// AutoPaused reports whether auto mode's breaker paused it.
func (a *Agent) AutoPaused() bool { return a.approvals.State.Paused() }
