package terminal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/mcp/oauth"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/internal/strictjson"
)

// In --json mode everything the user is asked is one kind of thing, a
// question: an event with an "id" (q1, q2, ...) that a line on stdin
// answers by naming it (docs/behaviour.md, "Answering in --json mode").
// Several questions may be open at once (a server's form while an
// approval waits, two forms of calls from one cell); each answer goes to
// the question it names. A question nobody answers is closed with a
// QuestionClosed event when its asker stops waiting or stdin ends, and
// taken as "no".

// Kinds of question.
const (
	askApproval = "approval" // ApprovalRequest
	askBudget   = "budget"   // BudgetRequest
	askInput    = "input"    // InputRequest: a line for a running cell
	askForm     = "form"     // FormRequest of mode "form"
	askURL      = "url"      // FormRequest of mode "url"
	askSignIn   = "sign_in"  // SignInRequest
	askReplay   = "replay"   // ReplayOffer
	askConfirm  = "confirm"  // Confirm: a yes/no question of the terminal's own
)

// Actions of an answer.
const (
	actAccept  = "accept"
	actDecline = "decline"
	actCancel  = "cancel"
)

// reply is an answer line: {"id":"q1","action":"accept", ...}. Content
// is a form's values, Scope an approval's reach (once, session, always),
// Text an input line. strictjson refuses any other key.
type reply struct {
	ID      string         `json:"id"`
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
	Scope   string         `json:"scope,omitempty"`
	Text    *string        `json:"text,omitempty"`

	values  map[string]any // a form's content, checked and typed
	request string         // a request line that declined a replay offer
	line    string         // the bare line it was read from
}

// question is one open question.
type question struct {
	id   string
	kind string
	// bare answers it from a line that is not an answer object (y, n, a
	// or s for an approval; the text for an input); nil when only an
	// answer object does.
	bare func(line string) (reply, error)
	// check refuses an answer the question cannot take (a form's values
	// that do not fit it); nil takes any.
	check func(r *reply) error
	got   chan reply
}

// questions asks the --json mode's questions and routes the answer lines
// read from stdin to them.
type questions struct {
	t *terminal

	mu     sync.Mutex
	next   int
	open   []*question // in the order asked
	ended  chan struct{}
	endErr string // why no more answers come; set before ended closes
	// reader is held by the one goroutine that reads stdin at a time;
	// the lines it reads go to the questions they name.
	reader chan struct{}
}

func newQuestions(t *terminal) *questions {
	return &questions{t: t, ended: make(chan struct{}), reader: make(chan struct{}, 1)}
}

// NoAnswer is why an unanswered question was closed at the end of input.
const NoAnswer = "no answer: standard input ended"

// ask prints q's event with its id and waits for its answer. ok is false
// when no answer came: stdin ended, stop closed or ctx ended; then why
// says so and a QuestionClosed event was printed.
func (qs *questions) ask(ctx context.Context, stop <-chan struct{}, q *question, event []byte) (r reply, why string, ok bool) {
	qs.mu.Lock()
	qs.next++
	q.id = "q" + strconv.Itoa(qs.next)
	q.got = make(chan reply, 1)
	qs.open = append(qs.open, q)
	qs.mu.Unlock()
	qs.t.emit(withID(event, q.id))
	closed := func(why string) (reply, string, bool) {
		if qs.remove(q) {
			qs.t.emit(adapter.MustJSON(questionClosed{Type: "QuestionClosed", ID: q.id, Reason: why}))
		}
		return reply{}, why, false
	}
	for {
		select {
		case r := <-q.got:
			return r, "", true
		case <-qs.ended:
			return closed(qs.endErr)
		case <-stop:
			return closed("cancelled (Ctrl-C)")
		case <-ctx.Done():
			return closed("withdrawn: " + withdrawn(ctx))
		case qs.reader <- struct{}{}:
			select {
			case r := <-q.got: // it came while waiting for the reader
				<-qs.reader
				return r, "", true
			default:
			}
			line, ok := qs.t.readLine(ctx, stop, nil)
			<-qs.reader
			if !ok {
				qs.endIfInputDone()
				continue
			}
			qs.route(line, false)
		}
	}
}

// withdrawn says why a question's asker stopped waiting.
func withdrawn(ctx context.Context) string {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, oauth.ErrSignedIn):
		return "signed in"
	case errors.Is(cause, context.Canceled):
		return "the request ended before it was answered"
	case cause != nil:
		return cause.Error()
	}
	return "the request ended before it was answered"
}

// request reads the next line that is not an answer (a request of the
// loop): answer lines that come meanwhile go to the questions open (a
// server's form outside a turn). ok is false at the end of input, a
// signal on interrupts or the end of ctx.
func (qs *questions) request(ctx context.Context, interrupts <-chan os.Signal) (string, bool) {
	for {
		select {
		case qs.reader <- struct{}{}:
		case <-qs.ended:
			return "", false
		case <-interrupts:
			return "", false
		case <-ctx.Done():
			return "", false
		}
		line, ok := qs.t.readLine(ctx, nil, interrupts)
		<-qs.reader
		if !ok {
			qs.endIfInputDone()
			return "", false
		}
		if !qs.route(line, true) {
			return line, true
		}
	}
}

// endIfInputDone closes every open question once stdin has ended.
func (qs *questions) endIfInputDone() {
	select {
	case <-qs.t.inputDone:
	default:
		return
	}
	qs.mu.Lock()
	defer qs.mu.Unlock()
	select {
	case <-qs.ended:
	default:
		qs.endErr = NoAnswer
		if err := qs.t.inputErr; err != nil {
			qs.endErr = "no answer: " + err.Error()
		}
		close(qs.ended)
	}
}

// remove takes q off the open questions; false when it was not open.
func (qs *questions) remove(q *question) bool {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	for i, o := range qs.open {
		if o == q {
			qs.open = append(qs.open[:i], qs.open[i+1:]...)
			return true
		}
	}
	return false
}

// route gives a line to the question it answers, or prints an
// AnswerError saying why it answers none. With between (no turn runs),
// a line that is no answer object is not routed but reported false: it
// is a request.
func (qs *questions) route(line string, between bool) bool {
	trimmed := strings.TrimSpace(line)
	if strings.HasPrefix(trimmed, "{") {
		var r reply
		err := strictjson.Unmarshal([]byte(trimmed), &r)
		if between && (err != nil || r.ID == "") {
			return false // a request that begins with {
		}
		if err != nil {
			qs.answerError("", fmt.Sprintf(`the line is not an answer (%v): send {"id":"q1","action":"accept"} with the id of an open question`, err))
			return true
		}
		qs.answer(r)
		return true
	}
	if between {
		return false
	}
	qs.mu.Lock()
	var q *question
	for _, o := range qs.open {
		if o.bare != nil {
			q = o
			break
		}
	}
	qs.mu.Unlock()
	if q == nil {
		qs.answerError("", `the line answers no open question: answer one with {"id":"qN","action":"accept"|"decline"|"cancel"}`)
		return true
	}
	r, err := q.bare(line)
	if err != nil {
		qs.answerError(q.id, err.Error())
		return true
	}
	r.ID, r.line = q.id, line
	qs.deliver(q, r)
	return true
}

// answer checks an answer object and gives it to the question it names.
func (qs *questions) answer(r reply) {
	if r.ID == "" {
		qs.answerError("", `the answer names no question: give the "id" of an open question`)
		return
	}
	qs.mu.Lock()
	var q *question
	for _, o := range qs.open {
		if o.id == r.ID {
			q = o
		}
	}
	qs.mu.Unlock()
	if q == nil {
		qs.answerError(r.ID, fmt.Sprintf("no question %s is open (it was answered or closed, or never asked)", r.ID))
		return
	}
	if err := checkReply(q, &r); err != nil {
		qs.answerError(q.id, err.Error())
		return
	}
	qs.deliver(q, r)
}

// checkReply refuses what does not fit the question: an unknown action,
// a field of another kind of question, content that does not fit a form.
func checkReply(q *question, r *reply) error {
	switch r.Action {
	case actAccept, actDecline, actCancel:
	case "":
		return errors.New(`the answer has no "action": give accept, decline or cancel`)
	default:
		return fmt.Errorf(`action %q: give accept, decline or cancel`, r.Action)
	}
	if r.Content != nil && (q.kind != askForm || r.Action != actAccept) {
		return fmt.Errorf(`"content" answers only an accepted form; %s is a %s question`, q.id, q.kind)
	}
	if r.Scope == "never" {
		if q.kind != askApproval || r.Action != actDecline {
			return fmt.Errorf(`scope "never" belongs only to a declined approval (a no that saves a deny rule); %s is a %s question`, q.id, q.kind)
		}
	} else if r.Scope != "" && (q.kind != askApproval || r.Action != actAccept) {
		return fmt.Errorf(`"scope" belongs only to an accepted approval, or "never" to a declined one; %s is a %s question`, q.id, q.kind)
	}
	switch r.Scope {
	case "", "once", "session", "always", "never":
	default:
		return fmt.Errorf(`scope %q: give once, session or always (accept), or never (decline)`, r.Scope)
	}
	if r.Text != nil && q.kind != askInput {
		return fmt.Errorf(`"text" answers only an input question; %s is a %s question`, q.id, q.kind)
	}
	if q.check != nil {
		return q.check(r)
	}
	return nil
}

// deliver answers q, unless another answer closed it meanwhile.
func (qs *questions) deliver(q *question, r reply) {
	if !qs.remove(q) {
		qs.answerError(q.id, fmt.Sprintf("question %s was closed before this answer came", q.id))
		return
	}
	q.got <- r
}

func (qs *questions) answerError(id, msg string) {
	qs.t.emit(adapter.MustJSON(answerError{Type: "AnswerError", ID: id, Error: msg}))
}

// questionClosed ends a question that got no answer.
type questionClosed struct {
	Type   string `json:"type"`
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// answerError says why an answer line was refused; the question it names
// (ID, when one is known) stays open. It never quotes the line: a line
// meant for a getpass() could be a secret.
type answerError struct {
	Type  string `json:"type"`
	ID    string `json:"id,omitempty"`
	Error string `json:"error"`
}

// formRequest is an MCP server's form (or page to open) as a question.
type formRequest struct {
	Type          string              `json:"type"`
	Server        string              `json:"server"`
	Mode          string              `json:"mode"`
	Message       string              `json:"message"`
	Fields        []adapter.FormField `json:"fields,omitempty"`
	URL           string              `json:"url,omitempty"`
	ElicitationID string              `json:"elicitation_id,omitempty"`
}

// signInRequest asks the user to sign in to an MCP server at URL.
type signInRequest struct {
	Type   string `json:"type"`
	Server string `json:"server"`
	URL    string `json:"url"`
}

// replayOffer offers to run a session's cells again.
type replayOffer struct {
	Type   string       `json:"type"`
	Reason string       `json:"reason"`
	Cells  []replayCell `json:"cells"`
}

type replayCell struct {
	Code    string `json:"code"`
	Changed bool   `json:"changed,omitempty"`
}

// confirmRequest is a yes/no question of the terminal's own (/undo).
type confirmRequest struct {
	Type     string `json:"type"`
	Question string `json:"question"`
}

// withID puts "id": id after the "type" of the JSON object b.
func withID(b []byte, id string) []byte {
	var typ struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(b, &typ)
	prefix := append([]byte(`{"type":`), adapter.MustJSON(typ.Type)...)
	rest, ok := bytes.CutPrefix(b, prefix)
	if !ok {
		return b
	}
	out := append(prefix, `,"id":`...)
	out = append(out, adapter.MustJSON(id)...)
	return append(out, rest...)
}

// approvalBare reads y, n, a, s or d (Enter is y).
func approvalBare(line string) (reply, error) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "", "y", "yes":
		return reply{Action: actAccept}, nil
	case "n", "no":
		return reply{Action: actDecline}, nil
	case "a", "always":
		return reply{Action: actAccept, Scope: "always"}, nil
	case "s", "session":
		return reply{Action: actAccept, Scope: "session"}, nil
	case "d", "never", "deny":
		return reply{Action: actDecline, Scope: "never"}, nil
	}
	return reply{}, errors.New(`approval answer: send y, n, a, s or d, or {"id":"qN","action":"accept"}`)
}

// yesNoBare reads y or n (Enter is n).
func yesNoBare(line string) (reply, error) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return reply{Action: actAccept}, nil
	case "", "n", "no":
		return reply{Action: actDecline}, nil
	}
	return reply{}, errors.New(`answer: send y or n, or {"id":"qN","action":"accept"}`)
}

// approveJSON asks an approval as a question and answers r; no answer
// rejects it. A protected call takes a lasting scope as once, a call that
// offers no lasting rule takes always as session, each with a note on
// stderr, so a script's answers stay in step with its requests.
func (t *terminal) approveJSON(ctx context.Context, r *agent.ApprovalRequest, stop <-chan struct{}) {
	b, err := agent.MarshalEvent(r)
	if err != nil {
		fmt.Fprintf(t.errw, "error: %v\n", err)
		r.Answer(agent.Reject, "")
		return
	}
	a, _, ok := t.qs.ask(ctx, stop, &question{kind: askApproval, bare: approvalBare}, b)
	said := a.line
	if said == "" {
		said = a.Scope
	}
	switch {
	case ok && a.Action == actDecline && a.Scope == "never" && r.Protected:
		fmt.Fprintf(t.errw, "approval answer %q: no rule is kept for this call; taken as n\n", said)
		r.Answer(agent.Reject, "")
		return
	case ok && a.Action == actDecline && a.Scope == "never":
		r.Answer(agent.Never, "")
		return
	case !ok || a.Action != actAccept:
		r.Answer(agent.Reject, "")
		return
	}
	switch {
	case a.Scope == "" || a.Scope == "once":
		r.Answer(agent.Once, "")
	case r.Protected:
		fmt.Fprintf(t.errw, "approval answer %q: this call can only be allowed once; taken as y\n", said)
		r.Answer(agent.Once, "")
	case r.NoAlways != "" && a.Scope == "always":
		fmt.Fprintf(t.errw, "approval answer %q: no lasting rule is offered for this call; taken as s\n", said)
		r.Answer(agent.Session, "")
	case a.Scope == "always":
		r.Answer(agent.Always, "")
	default:
		r.Answer(agent.Session, "")
	}
}

// yesNoJSON asks a yes/no question (a budget request, a confirmation);
// no answer is no.
func (t *terminal) yesNoJSON(ctx context.Context, stop <-chan struct{}, kind string, event []byte) bool {
	a, _, ok := t.qs.ask(ctx, stop, &question{kind: kind, bare: yesNoBare}, event)
	return ok && a.Action == actAccept
}

// inputJSON asks for a running cell's input line: a bare line is the
// text. No answer, or a decline, sends an empty line.
func (t *terminal) inputJSON(ctx context.Context, stop <-chan struct{}, r *agent.InputRequest) {
	b, err := agent.MarshalEvent(r)
	if err != nil {
		fmt.Fprintf(t.errw, "error: %v\n", err)
		r.Reply("")
		return
	}
	q := &question{kind: askInput, bare: func(line string) (reply, error) { return reply{Action: actAccept, Text: &line}, nil }}
	a, _, ok := t.qs.ask(ctx, stop, q, b)
	if !ok || a.Action != actAccept || a.Text == nil {
		r.Reply("")
		return
	}
	r.Reply(*a.Text)
}

// formJSON asks an MCP server's form (or page to open) as a question.
// Accepting a form sends its content, checked against the fields; a URL
// is not opened by freeact in --json mode: the script has it. No answer
// declines, and the server is told why.
func (qs *questions) formJSON(ctx context.Context, f mcp.Form) (mcp.Answer, error) {
	ev := formRequest{Type: "FormRequest", Server: f.Server, Mode: f.Mode, Message: f.Message, URL: f.URL, ElicitationID: f.ElicitationID}
	q := &question{kind: askURL}
	if f.Mode != "url" {
		ev.Fields = adapter.FormFields(f.Fields)
		q.kind = askForm
		q.check = func(r *reply) error {
			if r.Action != actAccept {
				return nil
			}
			typed, err := mcp.CheckAnswer(f.Fields, r.Content)
			if err != nil {
				return fmt.Errorf("the content does not fit the form: %w", err)
			}
			r.values = typed
			return nil
		}
	}
	a, why, ok := qs.ask(ctx, nil, q, adapter.MustJSON(ev))
	if !ok {
		if ctx.Err() != nil {
			return mcp.Answer{Action: actCancel}, nil
		}
		return mcp.Answer{Action: actDecline, Reason: why}, nil
	}
	return mcp.Answer{Action: a.Action, Values: a.values}, nil
}

// signInJSON is the browser step of an MCP sign-in in --json mode: a
// question with the link, which the script opens. Accepting it waits for
// the sign-in to finish; a decline, a cancel or no answer stops it. The
// question closes when the sign-in ends.
func (qs *questions) signInJSON(ctx context.Context, server, authURL string) error {
	ev := adapter.MustJSON(signInRequest{Type: "SignInRequest", Server: server, URL: authURL})
	go func() {
		a, _, ok := qs.ask(ctx, nil, &question{kind: askSignIn}, ev)
		if (!ok && ctx.Err() == nil) || (ok && a.Action != actAccept) {
			oauth.CancelSignIn(ctx)
		}
	}()
	return nil
}

// offerReplayJSON asks whether to run the session's cells again to
// restore a fresh kernel; true means quit. A line that is no answer
// object declines the offer and is the next request, so that scripts
// written before the offer was asked here keep working.
func (t *terminal) offerReplayJSON(ctx context.Context, a *agent.Agent) bool {
	offer, ok := a.ReplayOffer()
	if !ok {
		return false
	}
	ev := replayOffer{Type: "ReplayOffer", Reason: offer.Reason}
	for _, c := range offer.Cells {
		ev.Cells = append(ev.Cells, replayCell{Code: c.Code, Changed: c.Changed})
	}
	q := &question{kind: askReplay, bare: func(line string) (reply, error) {
		return reply{Action: actDecline, request: line}, nil
	}}
	// Ctrl-C quits here, as at the interactive offer.
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		select {
		case <-t.interrupts:
			close(stop)
		case <-done:
		}
	}()
	r, _, answered := t.qs.ask(ctx, stop, q, adapter.MustJSON(ev))
	close(done)
	select {
	case <-stop:
		return true
	default:
	}
	if answered && r.Action == actAccept {
		return t.replayAnswered(ctx, a, true)
	}
	t.replayAnswered(ctx, a, false)
	t.pending = r.request
	return false
}
