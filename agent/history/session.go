package history

import (
	"encoding/json"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/pydanticai"
	"github.com/freeact/desktop/agent/session"
)

// SessionFormat is the format of the Python freeact's session files
// (0.10 and 0.11: pydantic-ai messages in the same envelopes). Its sessions
// resume here and are continued in that format, so freeact can resume them
// too; sessions started here are written in this app's format.
var SessionFormat = session.Format[model.Message]{
	Name: "pydantic-ai", Detect: pydanticai.IsMessage, Decode: pydanticai.Decode, Encode: pydanticai.Encode,
}

// DecodeSessionMessage decodes one message of a session file in either
// format: this app's, or the Python freeact's (ok is false for a message
// with nothing for the history, such as freeact's system prompt).
func DecodeSessionMessage(raw json.RawMessage) (m model.Message, ok bool, err error) {
	if pydanticai.IsMessage(raw) {
		return pydanticai.Decode(raw)
	}
	err = json.Unmarshal(raw, &m)
	return m, err == nil, err
}

// SessionText is the searchable text of a session file's message: a
// prompt's or a reply's text (thoughts and tool results left out), or ""
// for anything else.
func SessionText(raw json.RawMessage) string {
	m, ok, err := DecodeSessionMessage(raw)
	if err != nil || !ok || len(m.FunctionResponses()) > 0 {
		return ""
	}
	return m.Text()
}
