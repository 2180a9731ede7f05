// Package event holds the typed events an agent's Stream yields, the tool
// calls they carry, and their JSON form. It is the leaf every part of the
// agent emits through.
package event

import (
	"sync"

	"github.com/freeact/desktop/agent/checkpoint"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/permission"
)

// Event is one thing that happens during a turn; this file holds every
// event type Stream yields (their JSON form is in encode.go). Every event names the agent
// that produced it ("main", or "sub-xxxx" for a subagent) and, where it
// belongs to a tool call, the call's correlation id, which ties the call's
// approval request, output chunks and result together.
type Event interface {
	// Agent returns the id of the agent that produced the event.
	Agent() string
	// Correlation returns the tool call id the event belongs to, or "".
	Correlation() string
}

// Meta is embedded in every event.
type Meta struct {
	AgentID       string `json:"agent_id"`
	CorrelationID string `json:"correlation_id,omitempty"`
}

// Agent returns the id of the agent that produced the event.
func (m Meta) Agent() string { return m.AgentID }

// Correlation returns the tool call id the event belongs to, or "".
func (m Meta) Correlation() string { return m.CorrelationID }

// ThoughtsChunk is a piece of the model's thinking as it streams.
type ThoughtsChunk struct {
	Meta
	Text string `json:"text"`
}

// Thoughts is the model's complete thinking of one model call.
type Thoughts struct {
	Meta
	Text string `json:"text"`
}

// ResponseChunk is a piece of the model's answer as it streams.
type ResponseChunk struct {
	Meta
	Text string `json:"text"`
}

// Response is the model's complete answer text of one model call. The last
// Response of a turn is the turn's answer; after a rejection its text is
// "Tool call rejected".
type Response struct {
	Meta
	Text string `json:"text"`
}

// CodeExecutionOutputChunk is output of a running code action as it
// arrives. Kind is stdout, stderr, result, image or error.
type CodeExecutionOutputChunk struct {
	Meta
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// CodeExecutionOutput is the complete output of a code action: its text and
// the paths of the images it produced.
type CodeExecutionOutput struct {
	Meta
	Text   string   `json:"text"`
	Images []string `json:"images"`
	// Error is set when the cell raised, timed out or the kernel failed.
	Error bool `json:"error,omitempty"`
	// ErrorText is the part of Text that tells of the error (the
	// traceback, the timeout, the kernel's death, the stop), the last
	// place Text holds it, to show apart from the cell's own output. ""
	// when there is none, or when only the whole of Text can be said to
	// be the error.
	ErrorText string `json:"error_text,omitempty"`
	// Rejected is the shell command or tool call the user rejected while
	// the cell ran (as its approval showed it); the cell was stopped there
	// and Text is its output up to then.
	Rejected string `json:"rejected,omitempty"`
	// ElapsedMS is how long the cell ran, in milliseconds, when known
	// from the session: set for a resumed session's cells the user ran
	// (model.Ran.ElapsedMS); live, the window counts the time itself.
	ElapsedMS int64 `json:"elapsed_ms,omitempty"`
}

// ToolOutput is the result of a tool call as the model receives it (after
// offloading, so a large result is the notice that points to its file).
type ToolOutput struct {
	Meta
	ToolName string `json:"tool_name"`
	Content  string `json:"content"`
	IsError  bool   `json:"is_error,omitempty"`
	// ElapsedMS is how long the call ran from its approval to its result,
	// in milliseconds; 0 for a call that did not run. The session keeps it
	// (model.FunctionResponse.ElapsedMS), so a resumed one shows it too.
	ElapsedMS int64 `json:"elapsed_ms,omitempty"`
	// SavedPath is the file the whole result was saved to when it was
	// offloaded (tool_result_inline_max_bytes), relative to the workspace;
	// "" when Content is the whole result. The agent sets it where it
	// offloads, and the session keeps it (model.FunctionResponse), so an
	// Open saved file button never takes a path from the text.
	SavedPath string `json:"saved_path,omitempty"`
}

// Usage reports the tokens of one model call and what it cost.
type Usage struct {
	Meta
	Model string `json:"model"`
	model.Usage
	// Cost is the call's price in US dollars by the model catalog (and
	// agent.json's models); nil when the model's price is unknown.
	Cost *float64 `json:"cost"`
	// Judge marks a call of auto mode's judge, shown on a line of its own.
	Judge bool `json:"judge,omitempty"`
}

// ModelRetry reports that a model call failed transiently and is retried.
type ModelRetry struct {
	Meta
	Attempt    int     `json:"attempt"`
	MaxRetries int     `json:"max_retries"`
	DelaySecs  float64 `json:"delay_seconds"`
	Reason     string  `json:"reason"`
}

// Cancelled ends a turn stopped by Cancel (or by the caller's context). Phase
// says where the turn was: PhaseStreaming, PhaseTools or PhaseBetween.
type Cancelled struct {
	Meta
	Phase string `json:"phase"`
}

// Cancellation phases.
const (
	PhaseStreaming = "llm_streaming"
	PhaseTools     = "tool_execution"
	PhaseBetween   = "between_turns"
)

// Failed ends a turn that could not go on: the model call failed after its
// retries, the model has no API key, or the session could not be written.
// The conversation is as it was before the turn, so the same prompt can be
// sent again once the cause is fixed.
type Failed struct {
	Meta
	Error string `json:"error"`
	// Cause is CauseAPIKey, CauseModel, CauseSession or "" (other).
	Cause string `json:"cause,omitempty"`
	// Summary says in plain words what failed and Fix what to do about
	// it; both are set for every Cause.
	Summary string `json:"summary,omitempty"`
	Fix     string `json:"fix,omitempty"`
	// KeyEnv names the variable of the missing key (CauseAPIKey).
	KeyEnv string `json:"key_env,omitempty"`
	// Status is the provider's HTTP status (CauseModel); 0 when the
	// provider was not reached.
	Status int `json:"status,omitempty"`
	// Kept is set when the turn failed after some of its actions ran: the
	// turn stays in the history and the session, with a note to the model
	// saying how it ended, instead of being taken back.
	Kept bool `json:"kept,omitempty"`
	// Action is what failed when it was not a turn: ActionCompact for a
	// compaction the user asked for, whose retry compacts again (and
	// sends no prompt); "" for a turn.
	Action string `json:"action,omitempty"`
}

// ActionCompact marks a Failed of Compact.
const ActionCompact = "compact"

// Decision is an answer to an ApprovalRequest.
type Decision int

const (
	// Reject refuses the call; it ends the turn.
	Reject Decision = iota
	// Once allows this call only.
	Once
	// Always allows the call and saves a rule to permissions.json.
	Always
	// Session allows the call and keeps a rule in memory for this session.
	Session
	// Never refuses the call, as Reject does, and saves a deny rule to
	// permissions.json: calls it matches are refused without asking from
	// then on. A Protected call saves no rule.
	Never
)

func (d Decision) String() string {
	switch d {
	case Once:
		return "yes"
	case Always:
		return "always"
	case Session:
		return "session"
	case Never:
		return "never"
	}
	return "no"
}

// ApprovalRequest asks the user whether a tool call may run. It resolves
// once: the first answer wins and later ones are ignored. Closing or
// cancelling the stream rejects it.
type ApprovalRequest struct {
	Meta
	ToolCall ToolCall `json:"tool_call"`
	// Display is the exact command of a shell action; for a script cell
	// a "#!" line naming the program, then the whole script. Empty for
	// other calls.
	Display string `json:"display,omitempty"`
	// Suggested is the pattern an Always or Session answer saves unless the
	// answer brings its own; empty for a Protected call.
	Suggested string `json:"suggested_pattern"`
	// Reason says why the call is asked when a rule allows calls like it
	// (cat .env under "cat *"), or why it is Protected; empty otherwise.
	Reason string `json:"reason,omitempty"`
	// Protected marks a call that changes what the agent may do without
	// asking (permissions.json, agent.json, the sandbox settings): only
	// yes or no answer it; Always and Session count as a one-time yes and
	// save no rule.
	Protected bool `json:"protected,omitempty"`
	// NoAlways says why no lasting rule is offered: the server marks its
	// tool destructive (mcp.Hints.IsDestructive). Once and Session answer
	// it; an Always answer counts as Session, a grant for this
	// conversation, and saves no rule. A rule the user writes in
	// permissions.json still allows the tool. Empty for other calls.
	NoAlways string `json:"no_always,omitempty"`
	// Judge is set when auto mode sends the call to the user:
	// "ask" (the judge asks, Reason says why), "failed" (the judge did
	// not answer: not a denial) or "paused" (the breaker paused auto
	// mode). Empty otherwise.
	Judge string `json:"judge,omitempty"`

	reply firstReply[Answer]
}

// Answer is the answer an ApprovalRequest got, as the turn that waits for
// it reads it from Answered.
type Answer struct {
	Decision Decision
	Pattern  string
	Code     string // a code action's cell as the user edited it
}

// NewApprovalRequest is the request the agent emits for call.
func NewApprovalRequest(meta Meta, call ToolCall, suggested string) *ApprovalRequest {
	return &ApprovalRequest{
		Meta: meta, ToolCall: call, Suggested: suggested,
		Display: Display(call),
		reply:   newFirstReply[Answer](),
	}
}

// Answered yields the request's first answer.
func (r *ApprovalRequest) Answered() <-chan Answer { return r.reply.ch }

// Approve answers yes (once) or no. It reports whether this was the first
// answer.
func (r *ApprovalRequest) Approve(ok bool) bool {
	if ok {
		return r.Answer(Once, "")
	}
	return r.Answer(Reject, "")
}

// Answer resolves the request. For Always, Session and Never, pattern is the rule
// to save (the user may have edited the suggestion); "" saves Suggested.
// It reports whether this was the first answer.
func (r *ApprovalRequest) Answer(d Decision, pattern string) bool {
	return r.reply.send(Answer{Decision: d, Pattern: pattern})
}

// Edit approves a code action with the cell as the user edited it: code
// runs instead of the model's code, and the model's history records the
// code that ran. It reports whether this was the first answer; a request
// for anything but a code action is not answered (false).
func (r *ApprovalRequest) Edit(code string) bool {
	if _, ok := r.ToolCall.(CodeAction); !ok {
		return false
	}
	return r.reply.send(Answer{Decision: Once, Code: code})
}

// Who allowed a call without asking (AutoApproved.By).
const (
	// ByRule: a saved rule of permissions.json.
	ByRule = "rule"
	// BySession: a grant made in this session with a Session answer.
	BySession = "session"
	// BySkip: every call runs without asking (WithSkipPermissions).
	BySkip = "skip"
	// ByHook: a PreToolUse hook allowed it where a rule could have (Rule
	// holds what the hook said).
	ByHook = "hook"
	// BySandbox: auto mode, the sandbox bounds the action and
	// checkpoints undo it.
	BySandbox = "sandbox"
	// ByReadOnly: auto mode, an MCP tool its server marks read-only, of
	// a server a rule or the user's earlier choice trusts.
	ByReadOnly = "read_only"
	// ByJudge: auto mode, the judge allowed it (Reason says why).
	ByJudge = "judge"
)

// AutoApproved reports a tool call that runs without asking, in place of
// the ApprovalRequest it would otherwise get: a front end shows the call
// (its code, command, arguments or file) as it shows an approved one, and
// who allowed it.
type AutoApproved struct {
	Meta
	ToolCall ToolCall `json:"tool_call"`
	// Display is the exact command of a shell action, as in
	// ApprovalRequest.
	Display string `json:"display,omitempty"`
	// By is ByRule, BySession, BySkip, ByHook, or in auto mode BySandbox,
	// ByReadOnly or ByJudge.
	By string `json:"by"`
	// Reason is the judge's reason for ByJudge; empty otherwise.
	Reason string `json:"reason,omitempty"`
	// Rule is the pattern of the rule or grant that allowed the call, in
	// the form an approval suggests (permission.Rule.Pattern); empty for
	// BySkip.
	Rule string `json:"rule,omitempty"`
}

// SessionGrants lists the grants of this session (rules a Session answer
// added) after one was added. They apply to this session only; see
// Agent.Grants and Agent.RevokeGrant.
type SessionGrants struct {
	Meta
	Grants []permission.Rule `json:"grants"`
}

// InputRequest asks the user for a line of input for a running cell (its
// input() or getpass()). Reply answers it; the cell gets EOFError when the
// turn ends first.
type InputRequest struct {
	Meta
	Prompt   string `json:"prompt"`
	Password bool   `json:"password,omitempty"`

	reply firstReply[string]
}

// NewInputRequest is the request the agent emits for a cell's input().
func NewInputRequest(meta Meta, prompt string, password bool) *InputRequest {
	return &InputRequest{Meta: meta, Prompt: prompt, Password: password, reply: newFirstReply[string]()}
}

// Answered yields the request's first reply.
func (r *InputRequest) Answered() <-chan string { return r.reply.ch }

// Reply sends the user's answer to the cell. Only the first reply counts.
func (r *InputRequest) Reply(text string) bool {
	return r.reply.send(text)
}

// CodeEdited reports that the user edited a code action before approving
// it: Code runs instead of the model's code (the ApprovalRequest had the
// model's).
type CodeEdited struct {
	Meta
	Code string `json:"code"`
}

// CellStarted begins a cell the user runs rather than the model (see
// Agent.RunCells and Agent.Replay): a past cell run again, a notebook cell,
// or one of the cells of a replay. Its output, approvals, input requests
// and complete output (CodeExecutionOutput) follow under its
// CorrelationID, as for a code action.
type CellStarted struct {
	Meta
	Code string `json:"code"`
	// Source is CellRerun, CellNotebook or CellReplay.
	Source string `json:"source"`
	// Of is the id of the cell run again, or the notebook cell's id.
	Of string `json:"of,omitempty"`
	// Index (from 1) and Total place the cell in its batch.
	Index int `json:"index"`
	Total int `json:"total"`
}

// CellsFinished ends a batch of cells the user ran: how many ran and
// failed of how many; Stopped when a cancel or a "no" ended it early.
type CellsFinished struct {
	Meta
	Source  string `json:"source"`
	Ran     int    `json:"ran"`
	Failed  int    `json:"failed"`
	Total   int    `json:"total"`
	Stopped bool   `json:"stopped,omitempty"`
}

// KernelStateNote reports what the conversation now records about the
// kernel's state (a restart, a replay, a choice not to restore it): Text is
// what the model is told.
type KernelStateNote struct {
	Meta
	// Event is StateRestarted, StateReplayed, StateSkipped or
	// StateNotRestored.
	Event string `json:"event"`
	Text  string `json:"text"`
}

// SessionUsage is where the session stands after a model call or a
// compaction: what it has cost and how full the main agent's context is.
type SessionUsage struct {
	Meta
	// Cost counts every priced model call of the session in US dollars:
	// subagents and compactions included, earlier runs of a resumed
	// session too.
	Cost float64 `json:"cost"`
	// Unpriced counts the calls whose price is unknown (not in Cost).
	Unpriced int `json:"unpriced_calls"`
	// Budget is max_cost_per_session, raised by each "continue" of a
	// BudgetRequest; nil when there is none.
	Budget *float64 `json:"budget"`
	// ContextTokens is about what the main agent's next request carries;
	// ContextWindow what its model accepts (0 when unknown) and CompactAt
	// the size at which older turns are compacted (0: not automatically).
	ContextTokens int `json:"context_tokens"`
	ContextWindow int `json:"context_window"`
	CompactAt     int `json:"compact_at"`
	// JudgeCost and JudgeCalls are auto mode's judge's calls: their
	// priced cost (part of Cost) and how many, a line of their own.
	JudgeCost  float64 `json:"judge_cost,omitempty"`
	JudgeCalls int     `json:"judge_calls,omitempty"`
}

// BudgetRequest pauses a turn before a model call that would take the
// session over max_cost_per_session. Continue(true) raises the budget by
// max_cost_per_session and makes the call; Continue(false), or the end of
// the turn, stops the turn with a Response saying why.
type BudgetRequest struct {
	Meta
	Spent    float64 `json:"spent"`    // the session so far, US dollars
	Budget   float64 `json:"budget"`   // the budget it would go over
	Estimate float64 `json:"estimate"` // about what the next call costs

	reply firstReply[bool]
}

// NewBudgetRequest is the request the agent emits before a call that would
// go over the budget.
func NewBudgetRequest(meta Meta, spent, budget, estimate float64) *BudgetRequest {
	return &BudgetRequest{Meta: meta, Spent: spent, Budget: budget, Estimate: estimate, reply: newFirstReply[bool]()}
}

// Answered yields the request's first answer.
func (r *BudgetRequest) Answered() <-chan bool { return r.reply.ch }

// Continue answers the request; only the first answer counts.
func (r *BudgetRequest) Continue(ok bool) bool {
	return r.reply.send(ok)
}

// firstReply takes a request's answers, of which only the first counts,
// to the turn that waits for it on ch.
type firstReply[T any] struct {
	once sync.Once
	ch   chan T
}

func newFirstReply[T any]() firstReply[T] { return firstReply[T]{ch: make(chan T, 1)} }

// send passes v on if it is the first answer and reports whether it was.
func (r *firstReply[T]) send(v T) bool {
	first := false
	r.once.Do(func() { first = true; r.ch <- v })
	return first
}

// Compacting says that older turns are being summarised: Reason is
// "threshold" (the request would fill compaction_threshold of the
// window), "overflow" (the provider refused a request as too large) or
// "manual"; Messages counts the messages summarised.
type Compacting struct {
	Meta
	Reason   string `json:"reason"`
	Messages int    `json:"messages"`
}

// Compacted ends a compaction: from now on the model sees Summary in
// place of the Messages oldest messages it had seen. The session keeps
// them all.
type Compacted struct {
	Meta
	Reason       string `json:"reason"`
	Summary      string `json:"summary"`
	Messages     int    `json:"messages"`
	TokensBefore int    `json:"tokens_before"`
	TokensAfter  int    `json:"tokens_after"`
}

// FilesChanged lists the files a code action or a file tool call changed
// in the workspace (with checkpoints on); it belongs to the call.
// Checkpoint is the id to diff or revert it by, TurnID that of its turn.
type FilesChanged struct {
	Meta
	Checkpoint string              `json:"checkpoint"`
	TurnID     string              `json:"turn_id"`
	Files      []checkpoint.Change `json:"files"`
	// RevertedBy names the revert that took the change back, when the
	// event is replayed from history.
	RevertedBy string `json:"reverted_by,omitempty"`
	// Late: the process died during the action, and its record was
	// completed at the next start (Agent.Recover), with the workspace as
	// it was then.
	Late bool `json:"late,omitempty"`
}

// Reverted reports that the user took changes back: Reverts are the
// checkpoints reverted, Checkpoint the revert's own (revert it to undo
// the revert), Files what it changed.
type Reverted struct {
	Meta
	Checkpoint string              `json:"checkpoint"`
	Reverts    []string            `json:"reverts"`
	Label      string              `json:"label"`
	Files      []checkpoint.Change `json:"files"`
	// Unrestorable files were too large to keep; they were left alone.
	Unrestorable []string `json:"unrestorable,omitempty"`
	// Kept are files changed since that a revert without force left as
	// they are.
	Kept []string `json:"kept,omitempty"`
}

// ReplyCut tells that the model's reply was cut off at the output token
// limit: its text may end mid-sentence, and the calls it had begun whose
// arguments did not arrive whole (Dropped, by tool name) were not run; the
// model is told so. Text says it in plain words, with the setting that
// raises the limit.
type ReplyCut struct {
	Meta
	Text string `json:"text"`
	// OutputTokens is the reply's length, 0 when the provider did not say.
	OutputTokens int `json:"output_tokens,omitempty"`
	// MaxTokens is the limit set, 0 for the provider's default.
	MaxTokens int `json:"max_tokens,omitempty"`
	// Setting names the setting that raises the limit.
	Setting string   `json:"setting"`
	Dropped []string `json:"dropped,omitempty"`
}

// ToolProgress is what an MCP server reports while a call of its tools
// runs (a JSON call, or a call from a cell: then CorrelationID is the
// cell's): the latest progress and the log lines since the last
// ToolProgress. At most ten a second go out for a call, however many the
// server sends, and their text is clipped where it enters (mcp.MaxNoteBytes
// a message, mcp.NoteBudget a second for a server).
type ToolProgress struct {
	Meta
	Server string `json:"server"`
	// Progress and Total (0: unknown) of the latest progress notification,
	// Message its text.
	Progress float64 `json:"progress,omitempty"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
	// Clipped counts the bytes left out of Message (its end says so).
	Clipped int `json:"clipped,omitempty"`
	// Logs are the newest log messages since the last ToolProgress;
	// Dropped counts the older ones left out.
	Logs    []LogLine `json:"logs,omitempty"`
	Dropped int       `json:"dropped,omitempty"`
}

// LogLine is a server's log message (notifications/message).
type LogLine struct {
	Level   string `json:"level"`
	Message string `json:"message"`
	// Clipped counts the bytes left out of Message (its end says so).
	Clipped int `json:"clipped,omitempty"`
}

// Notice tells the user something about the session that is not an
// error of the turn, such as checkpoints being turned off.
type Notice struct {
	Meta
	Text string `json:"text"`
}

// Kinds of HookNote.
const (
	HookBlocked = "blocked"
	HookChanged = "changed"
	HookContext = "context"
)

// HookNote tells the user that a hook (agent/hooks) blocked a call,
// changed its input or added context for the model, with what it said.
// Text is the hooks' own words: front ends show it as plain text, never
// as markup or as one of the app's notes, whatever it imitates.
type HookNote struct {
	Meta
	// Kind is HookBlocked, HookChanged or HookContext.
	Kind string `json:"kind"`
	// Event is the hook event (PreToolUse, PostToolUse...); Tool the call
	// as hooks name it (Bash, Write, mcp__server__tool, PythonCell).
	Event string `json:"event"`
	Tool  string `json:"tool"`
	Text  string `json:"text"`
	// Input is, for HookChanged, the input the call runs with, as JSON.
	Input string `json:"input,omitempty"`
}
