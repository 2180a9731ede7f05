package desktop

import "github.com/freeact/desktop/agent"

// LargeMentions reads the resources a prompt mentions (@server:uri) and
// lists those larger than the mention limit (256 KiB), for the prompt box
// to ask before it sends them whole (SendAllowingLarge). Empty while no
// agent runs or a turn is under way: Send expands nothing then.
func (d *Desktop) LargeMentions(prompt string) ([]agent.LargeMention, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	ws.mu.Lock()
	a, busy := ws.agent, ws.turn != nil
	ws.mu.Unlock()
	if a == nil || busy {
		return []agent.LargeMention{}, nil
	}
	large, err := a.LargeMentions(ws.d.host.context(), prompt)
	if large == nil && err == nil {
		large = []agent.LargeMention{}
	}
	return large, err
}

// SendAllowingLarge is Send once the user agreed to attach mentioned
// resources over the mention limit.
func (d *Desktop) SendAllowingLarge(prompt string, attachments []Attachment) error {
	return d.sendPrompt(prompt, attachments, agent.AllowLargeMentions())
}
