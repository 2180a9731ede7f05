package history

import (
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
