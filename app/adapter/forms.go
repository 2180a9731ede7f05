package adapter

import (
	"encoding/json"

	"github.com/freeact/desktop/agent/mcp"
)

// FormField is a field of an MCP server's form (mcp.Field) as the front
// ends send it: the window's form card and the --json form question.
type FormField struct {
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	Type        string       `json:"type"`
	Format      string       `json:"format,omitempty"`
	Required    bool         `json:"required"`
	Default     any          `json:"default,omitempty"`
	Options     []FormOption `json:"options,omitempty"`
	Multi       bool         `json:"multi,omitempty"`
	Minimum     *float64     `json:"minimum,omitempty"`
	Maximum     *float64     `json:"maximum,omitempty"`
	MinLength   *int         `json:"minLength,omitempty"`
	MaxLength   *int         `json:"maxLength,omitempty"`
	MinItems    *int         `json:"minItems,omitempty"`
	MaxItems    *int         `json:"maxItems,omitempty"`
}

// FormOption is one value of a choice.
type FormOption struct {
	Value string `json:"value"`
	Title string `json:"title"`
}

// FormFields are the fields of a form as the front ends send them.
func FormFields(fields []mcp.Field) []FormField {
	out := make([]FormField, 0, len(fields))
	for _, f := range fields {
		ff := FormField{Name: f.Name, Title: f.Title, Description: f.Description, Type: f.Type, Format: f.Format,
			Required: f.Required, Default: f.Default, Multi: f.Multi, Minimum: f.Minimum, Maximum: f.Maximum,
			MinLength: f.MinLength, MaxLength: f.MaxLength, MinItems: f.MinItems, MaxItems: f.MaxItems}
		for _, o := range f.Options {
			ff.Options = append(ff.Options, FormOption{Value: o.Value, Title: o.Title})
		}
		out = append(out, ff)
	}
	return out
}

// MustJSON encodes an event of the app's own fixed types, which always
// encode; should one not, it is a Failed event saying so.
func MustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`{"type":"Failed","agent_id":"main","error":"internal: event not encodable"}`)
	}
	return b
}
