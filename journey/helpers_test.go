//go:build journey

package journey

import "github.com/freeact/desktop/agent/model"

// responseOutput is the output the request sends back for the call id.
func responseOutput(r Request, id string) string {
	for _, m := range r.Messages {
		for _, fr := range m.FunctionResponses() {
			if fr.ID == id {
				return fr.Output
			}
		}
	}
	return ""
}

// images counts the image parts of a message.
func images(m model.Message) int {
	n := 0
	for _, p := range m.Parts {
		if p.Image != nil {
			n++
		}
	}
	return n
}
