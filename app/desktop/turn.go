package desktop

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/freeact/desktop/agent/mcpglue"
	"iter"
	"os"
	"path/filepath"
	"strings"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/files"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/kernel"
)

// maxImageSide is the longest side of an attached image sent to the model.
const maxImageSide = 1024

// maxAttachmentBytes bounds an attachment read from disk or pasted.
const maxAttachmentBytes = 50 << 20

// Attachment is an image the user attached: a file path (dropped or
// referenced) or the data URL of a pasted image.
type Attachment struct {
	Name    string `json:"name"`
	Path    string `json:"path,omitempty"`
	DataURL string `json:"dataUrl,omitempty"`
}

// turn is a running turn.
type turn struct {
	done chan struct{}
}

// Send submits a prompt with optional image attachments. The turn runs in
// the background; its events arrive as EventAgent batches.
func (d *Desktop) Send(prompt string, attachments []Attachment) error {
	return d.sendPrompt(prompt, attachments)
}

// sendPrompt is Send; opts change what the mentions attach.
func (d *Desktop) sendPrompt(prompt string, attachments []Attachment, opts ...mcpglue.ExpandOption) error {
	if strings.TrimSpace(prompt) == "" && len(attachments) == 0 {
		return errors.New("the prompt is empty: type a request first")
	}
	ws, err := d.current()
	if err != nil {
		return err
	}
	images := make([]model.Image, 0, len(attachments))
	for _, at := range attachments {
		im, err := ws.loadAttachment(at)
		if err != nil {
			return err
		}
		images = append(images, im)
	}
	if err := ws.applySettings(); err != nil {
		return err
	}
	// @server:uri mentions and a /server:prompt command become what the
	// model gets; the conversation shows the prompt as typed.
	ws.mu.Lock()
	a, busy := ws.agent, ws.turn != nil
	ws.mu.Unlock()
	text := prompt
	if a != nil && !busy {
		if text, err = a.ExpandMCP(ws.d.host.context(), prompt, opts...); err != nil {
			return err
		}
	}
	a, t, err := ws.claim()
	if err != nil {
		return err
	}
	ws.begin(t, a.Stream(ws.d.host.context(), agent.Prompt{Text: text, Images: images}), userEvent(prompt, images, nextTurn(a)))
	return nil
}

// ContinueTurn is the Retry of a turn that failed after some of its
// actions ran (its failure has kept set): the model carries on from where
// the turn stopped, with those actions' results, instead of getting the
// prompt again and running them twice. Settings saved since (a fixed
// model, a new key) apply first, as for Send.
func (d *Desktop) ContinueTurn() error {
	ws, err := d.current()
	if err != nil {
		return err
	}
	if err := ws.applySettings(); err != nil {
		return err
	}
	a, t, err := ws.claim()
	if err != nil {
		return err
	}
	ws.begin(t, a.Continue(ws.d.host.context()))
	return nil
}

// applySettings takes over settings saved since the last turn, between
// turns.
func (ws *workspace) applySettings() error {
	ws.mu.Lock()
	a, busy := ws.agent, ws.turn != nil
	ws.mu.Unlock()
	if a != nil && !busy && ws.settingsChanged.Swap(false) {
		if err := ws.reconfigure(ws.d.host.context(), a); err != nil {
			ws.settingsChanged.Store(true)
			return fmt.Errorf("the saved settings could not be applied: %w", err)
		}
	}
	return nil
}

// startTurn runs what stream starts in the place of a turn (the user's
// cells, a replay): it refuses while the agent starts or a turn runs.
func (ws *workspace) startTurn(stream func(a *agent.Agent) iter.Seq[agent.Event]) error {
	a, t, err := ws.claim()
	if err != nil {
		return err
	}
	ws.begin(t, stream(a))
	return nil
}

// claim makes the agent's next turn the window's: it fails while the
// agent is starting or a turn runs.
func (ws *workspace) claim() (*agent.Agent, *turn, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	switch {
	case ws.agent == nil && ws.status.State == KernelError:
		return nil, nil, errors.New("the kernel did not start: fix the error shown and press Retry")
	case ws.agent == nil:
		return nil, nil, errors.New("the kernel is still starting: wait for \"Kernel ready\"")
	case ws.turn != nil:
		return nil, nil, errors.New("a turn is running: wait for it or stop it first")
	}
	ws.turn = &turn{done: make(chan struct{})}
	return ws.agent, ws.turn, nil
}

// begin tells the window that the claimed turn t started (TurnStarted,
// then shown) and streams its events in the background.
func (ws *workspace) begin(t *turn, events iter.Seq[agent.Event], shown ...json.RawMessage) {
	ws.push(queued{raw: adapter.MustJSON(turnMarker{Type: "TurnStarted", AgentID: agent.MainAgent})})
	for _, ev := range shown {
		ws.push(queued{raw: ev})
	}
	ws.mu.Lock()
	ws.lv.outcome = ""
	ws.mu.Unlock()
	ws.setStatus(KernelStatus{State: KernelBusy, Message: "Working…", Progress: -1})
	go ws.run(t, events)
}

// run streams one turn (or a compaction) to the window.
func (ws *workspace) run(t *turn, events iter.Seq[agent.Event]) {
	defer close(t.done)
	died := false
	outcome := ConvFinished
	for ev := range events {
		q := queued{ev: ev}
		asks := false
		switch e := ev.(type) {
		case *agent.ApprovalRequest, *agent.InputRequest, *agent.BudgetRequest:
			q.requestID = ws.requestID(ev)
			asks = true
		case *agent.Failed:
			if e.AgentID == agent.MainAgent {
				outcome = ConvFailed
			}
		case *agent.Cancelled:
			if e.AgentID == agent.MainAgent {
				outcome = ""
			}
		case *mcpglue.MCPWaiting:
			if !e.Done {
				q.requestID = ws.requestID(ev)
			} else {
				// The wait is over: nothing asks for a Skip any more (a
				// reloaded page gets no wait bar).
				ws.dropPending(func(r any) bool { _, ok := r.(*mcpglue.MCPWaiting); return ok })
			}
		case *agent.CodeExecutionOutput:
			if e.Error && e.AgentID == agent.MainAgent && strings.Contains(e.Text, kernel.ErrKernelDied.Error()) {
				died = true
				ws.setStatus(KernelStatus{State: KernelDied, Message: kernel.ErrKernelDied.Error(), Progress: -1})
			}
		}
		ws.push(clipOutput(q))
		if asks {
			// The session list counts it, and a conversation out of view
			// tells the desktop it waits.
			ws.changed()
		}
	}
	ws.mu.Lock()
	ws.turn = nil
	ws.lv.outcome = outcome
	// The stream rejected what was not answered; forget it.
	clear(ws.pending)
	ws.mu.Unlock()
	ws.d.mcpUser().cancelForms(ws)
	ws.push(queued{raw: adapter.MustJSON(turnMarker{Type: "TurnEnded", AgentID: agent.MainAgent})})
	msg := "Kernel ready"
	if died {
		msg = msgRestartedAfterDeath
	}
	ws.setStatus(KernelStatus{State: KernelReady, Message: msg, Progress: 1})
}

// loadAttachment reads and downscales an attached image.
func (ws *workspace) loadAttachment(at Attachment) (model.Image, error) {
	var data []byte
	name := at.Name
	switch {
	case at.DataURL != "":
		_, b64, ok := strings.Cut(at.DataURL, ";base64,")
		if !ok || !strings.HasPrefix(at.DataURL, "data:image/") {
			return model.Image{}, fmt.Errorf("attachment %s: not an image data URL", name)
		}
		if len(b64) > maxAttachmentBytes*4/3+4 {
			return model.Image{}, fmt.Errorf("attachment %s is larger than %d MB", name, maxAttachmentBytes>>20)
		}
		var err error
		data, err = base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return model.Image{}, fmt.Errorf("attachment %s: %w", name, err)
		}
	case at.Path != "":
		p := ws.abs(at.Path)
		if name == "" {
			name = filepath.Base(p)
		}
		st, err := os.Stat(p)
		if err != nil {
			return model.Image{}, fmt.Errorf("attachment %s: %w", at.Path, err)
		}
		if st.Size() > maxAttachmentBytes {
			return model.Image{}, fmt.Errorf("attachment %s is larger than %d MB", at.Path, maxAttachmentBytes>>20)
		}
		data, err = os.ReadFile(p)
		if err != nil {
			return model.Image{}, fmt.Errorf("attachment %s: %w", at.Path, err)
		}
	default:
		return model.Image{}, errors.New("an attachment has neither a path nor data")
	}
	im, err := files.FitImage(data, maxImageSide)
	if err != nil {
		return model.Image{}, fmt.Errorf("attachment %s is not an image that can be read (PNG, JPEG, GIF or WEBP): %w", name, err)
	}
	return model.Image{MIMEType: im.MIMEType, Data: im.Data}, nil
}

// abs resolves a path relative to the workspace.
func (ws *workspace) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(ws.dir, p)
}

// Decisions the frontend sends to Approve.
var decisions = map[string]agent.Decision{
	"yes": agent.Once, "no": agent.Reject, "always": agent.Always, "session": agent.Session, "never": agent.Never,
}

// Approve answers the approval request id with "yes", "no", "always",
// "session" or "never" (no, and a deny rule saved); pattern is the
// (possibly edited) rule for always, session and never.
func (d *Desktop) Approve(id, decision, pattern string) error {
	dec, ok := decisions[decision]
	if !ok {
		return fmt.Errorf("unknown decision %q: want yes, no, always, session or never", decision)
	}
	ws, err := d.current()
	if err != nil {
		return err
	}
	req, err := ws.takeApproval(id, nil)
	if err != nil {
		return err
	}
	ws.decided(id, decision)
	req.Answer(dec, strings.TrimSpace(pattern))
	return nil
}

// takeApproval removes the approval request id from the pending requests
// and returns it; a request that accept refuses stays pending.
func (ws *workspace) takeApproval(id string, accept func(*agent.ApprovalRequest) error) (*agent.ApprovalRequest, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	r, ok := ws.pending[id]
	if !ok {
		return nil, fmt.Errorf("approval %s is no longer pending (the turn ended or it was answered)", id)
	}
	req, ok := r.(*agent.ApprovalRequest)
	if !ok {
		return nil, fmt.Errorf("request %s is not an approval", id)
	}
	if accept != nil {
		if err := accept(req); err != nil {
			return nil, err
		}
	}
	delete(ws.pending, id)
	go ws.changed()
	return req, nil
}

// decided is takeApproval's request id answered with decision: the
// conversation's transcript records it, so that shown again it is not
// asked again.
func (ws *workspace) decided(id, decision string) {
	ws.lv.mu.Lock()
	defer ws.lv.mu.Unlock()
	ws.lv.transcript = append(ws.lv.transcript, []json.RawMessage{answeredEvent(id, decision)})
}

// ReplyInput answers a cell's input() request id.
func (d *Desktop) ReplyInput(id, text string) error {
	req, err := takeRequest[*agent.InputRequest](d, id, "input request")
	if err != nil {
		return err
	}
	req.Reply(text)
	return nil
}

// Cancel stops the running turn; the stream ends with a Cancelled event.
func (d *Desktop) Cancel() {
	ws, err := d.current()
	if err != nil {
		return
	}
	ws.mu.Lock()
	a := ws.agent
	ws.mu.Unlock()
	if a != nil {
		a.Cancel()
	}
	// Its forms too: the call waiting on one ends only once it is answered.
	d.mcpUser().cancelForms(ws)
}

// Skills lists the workspace's skills for /skill completion.
func (d *Desktop) Skills() ([]SkillInfo, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	skills, _ := config.LoadSkills(ws.dir)
	out := make([]SkillInfo, 0, len(skills))
	for _, s := range skills {
		out = append(out, SkillInfo{Name: s.Name, Description: s.Description})
	}
	return out, nil
}

// SkillInfo is one skill for the prompt box's completion.
type SkillInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}
