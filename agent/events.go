package agent

import (
	"github.com/freeact/desktop/agent/event"
)

// The SDK's events and tool calls live in agent/event; these aliases keep
// them reachable as agent.Event, agent.ApprovalRequest, ... .

type (
	Event                    = event.Event
	Meta                     = event.Meta
	ThoughtsChunk            = event.ThoughtsChunk
	Thoughts                 = event.Thoughts
	ResponseChunk            = event.ResponseChunk
	Response                 = event.Response
	CodeExecutionOutputChunk = event.CodeExecutionOutputChunk
	CodeExecutionOutput      = event.CodeExecutionOutput
	ToolOutput               = event.ToolOutput
	Usage                    = event.Usage
	ModelRetry               = event.ModelRetry
	Cancelled                = event.Cancelled
	Failed                   = event.Failed
	Decision                 = event.Decision
	ApprovalRequest          = event.ApprovalRequest
	AutoApproved             = event.AutoApproved
	SessionGrants            = event.SessionGrants
	InputRequest             = event.InputRequest
	CodeEdited               = event.CodeEdited
	CellStarted              = event.CellStarted
	CellsFinished            = event.CellsFinished
	KernelStateNote          = event.KernelStateNote
	SessionUsage             = event.SessionUsage
	BudgetRequest            = event.BudgetRequest
	Compacting               = event.Compacting
	Compacted                = event.Compacted
	FilesChanged             = event.FilesChanged
	Reverted                 = event.Reverted
	ReplyCut                 = event.ReplyCut
	ToolProgress             = event.ToolProgress
	LogLine                  = event.LogLine
	Notice                   = event.Notice
	HookNote                 = event.HookNote
	ToolCall                 = event.ToolCall
	CodeAction               = event.CodeAction
	ShellAction              = event.ShellAction
	GenericCall              = event.GenericCall
	FileRead                 = event.FileRead
	FileWrite                = event.FileWrite
	FileEdit                 = event.FileEdit
)

const (
	HookBlocked = event.HookBlocked
	HookChanged = event.HookChanged
	HookContext = event.HookContext
)

const (
	PhaseStreaming = event.PhaseStreaming
	PhaseTools     = event.PhaseTools
	PhaseBetween   = event.PhaseBetween
	Reject         = event.Reject
	Once           = event.Once
	Always         = event.Always
	Session        = event.Session
	Never          = event.Never
	ByRule         = event.ByRule
	BySession      = event.BySession
	BySkip         = event.BySkip
	ByHook         = event.ByHook
	BySandbox      = event.BySandbox
	ByReadOnly     = event.ByReadOnly
	ByJudge        = event.ByJudge
	ActionCompact  = event.ActionCompact
)

// TypeName is event.TypeName.
func TypeName(c ToolCall) string { return event.TypeName(c) }

// EventType is event.EventType.
func EventType(ev Event) string { return event.EventType(ev) }

// MarshalEvent is event.MarshalEvent.
func MarshalEvent(ev Event) ([]byte, error) { return event.MarshalEvent(ev) }
