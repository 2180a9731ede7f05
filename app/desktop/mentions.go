package desktop

import (
	"github.com/freeact/desktop/agent/mcpglue"
)

// LargeMentions reads the resources a prompt mentions (@server:uri) and
// lists those larger than the mention limit (256 KiB), for the prompt box
// to ask before it sends them whole (SendAllowingLarge). Empty while no
// agent runs or a turn is under way: Send expands nothing then.
func (d *Desktop) LargeMentions(prompt string) ([]mcpglue.LargeMention, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	ws.mu.Lock()
	a, busy := ws.agent, ws.turn != nil
	ws.mu.Unlock()
	if a == nil || busy {
		return []mcpglue.LargeMention{}, nil
	}
	large, err := a.LargeMentions(ws.d.host.context(), prompt)
	if large == nil && err == nil {
		large = []mcpglue.LargeMention{}
	}
	return large, err
}

// SendAllowingLarge is Send once the user agreed to attach mentioned
// resources over the mention limit.
func (d *Desktop) SendAllowingLarge(prompt string, attachments []Attachment) error {
	return d.sendPrompt(prompt, attachments, mcpglue.AllowLargeMentions())
}
