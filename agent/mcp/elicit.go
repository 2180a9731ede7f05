package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/mark3labs/mcp-go/mcp"
)

// Form is a server's request for input from the user (elicitation/create):
// a form of primitive fields, or (Mode "url") a page to open.
type Form struct {
	Server  string
	Message string
	Mode    string // "form" or "url"
	Fields  []Field
	// URL and ElicitationID of a URL-mode request.
	URL           string
	ElicitationID string
}

// Field is one field of a Form.
type Field struct {
	Name        string
	Title       string
	Description string
	// Type is string, number, integer or boolean; a field with Options
	// is a choice (Multi: several values).
	Type     string
	Format   string
	Required bool
	Default  any
	Options  []Option
	Multi    bool
	// Bounds of a number or integer, of a string's length and of the
	// number of choices of a multi-select (nil: none).
	Minimum, Maximum     *float64
	MinLength, MaxLength *int
	MinItems, MaxItems   *int
}

// Option is one value of a choice, with its title.
type Option struct {
	Value string
	Title string
}

// Answer is the user's answer to a Form.
type Answer struct {
	// Action is "accept", "decline" or "cancel".
	Action string
	// Values of an accepted form, by field name; fields left out get their
	// defaults.
	Values map[string]any
	// Reason says why a form was declined or cancelled without the
	// user's choice (no answer came); the server gets it in _meta
	// (DeclinedMeta). Empty for the user's own answer.
	Reason string
}

// ParseForm reads a requested schema (a flat object of primitive
// properties, MCP elicitation) into fields, in the order of their names.
// A schema it cannot show is an error saying why.
func ParseForm(schema any) ([]Field, error) {
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	type choice struct {
		Const string `json:"const"`
		Title string `json:"title"`
	}
	type prop struct {
		Type        string   `json:"type"`
		Title       string   `json:"title"`
		Description string   `json:"description"`
		Format      string   `json:"format"`
		Default     any      `json:"default"`
		Enum        []string `json:"enum"`
		EnumNames   []string `json:"enumNames"`
		OneOf       []choice `json:"oneOf"`
		AnyOf       []choice `json:"anyOf"`
		Minimum     *float64 `json:"minimum"`
		Maximum     *float64 `json:"maximum"`
		MinLength   *int     `json:"minLength"`
		MaxLength   *int     `json:"maxLength"`
		MinItems    *int     `json:"minItems"`
		MaxItems    *int     `json:"maxItems"`
		Items       *struct {
			Enum  []string `json:"enum"`
			AnyOf []choice `json:"anyOf"`
			OneOf []choice `json:"oneOf"`
		} `json:"items"`
	}
	var s struct {
		Type       string          `json:"type"`
		Properties map[string]prop `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("the requested schema is not a flat object of primitive fields: %w", err)
	}
	if s.Type != "" && s.Type != "object" {
		return nil, fmt.Errorf("the requested schema is of type %q, not an object", s.Type)
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	options := func(enum, titles []string, choices []choice) []Option {
		var out []Option
		for i, v := range enum {
			o := Option{Value: v, Title: v}
			if i < len(titles) {
				o.Title = titles[i]
			}
			out = append(out, o)
		}
		for _, c := range choices {
			o := Option{Value: c.Const, Title: c.Title}
			if o.Title == "" {
				o.Title = c.Const
			}
			out = append(out, o)
		}
		return out
	}
	var fields []Field
	for _, n := range names {
		p := s.Properties[n]
		f := Field{Name: n, Title: p.Title, Description: p.Description, Type: p.Type, Format: p.Format,
			Required: slices.Contains(s.Required, n), Default: p.Default,
			Minimum: p.Minimum, Maximum: p.Maximum, MinLength: p.MinLength, MaxLength: p.MaxLength,
			MinItems: p.MinItems, MaxItems: p.MaxItems}
		switch p.Type {
		case "string", "number", "integer", "boolean":
			f.Options = options(p.Enum, p.EnumNames, append(p.OneOf, p.AnyOf...))
		case "array":
			if p.Items == nil {
				return nil, fmt.Errorf("field %q is a list without items", n)
			}
			f.Multi = true
			f.Options = options(p.Items.Enum, nil, append(p.Items.AnyOf, p.Items.OneOf...))
			if len(f.Options) == 0 {
				return nil, fmt.Errorf("field %q is a list that is not a choice of values", n)
			}
		default:
			return nil, fmt.Errorf("field %q is of type %q; forms hold only strings, numbers, booleans and choices", n, p.Type)
		}
		fields = append(fields, f)
	}
	return fields, nil
}

// WithDefaults returns values with the default of each field that has one
// and is not given (SEP-1034).
func WithDefaults(fields []Field, values map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range values {
		out[k] = v
	}
	for _, f := range fields {
		if _, ok := out[f.Name]; !ok && f.Default != nil {
			out[f.Name] = f.Default
		}
	}
	return out
}

// elicitor answers a server's elicitation/create with Options.Elicit.
type elicitor struct {
	server string
	ask    func(ctx context.Context, f Form) (Answer, error)
	life   context.Context
	asking func() func()
	// tell shows the user a note on the cards of the server's calls in
	// flight (as a log notification).
	tell  func(Notification)
	guard guard
}

// DeclinedMeta is the _meta key of an elicitation that freeact declined
// or cancelled itself, without the user's choice (a form it cannot show,
// a question no answer came to: Answer.Reason): its value says why.
const DeclinedMeta = "freeact/declined"

func (e elicitor) Elicit(ctx context.Context, req mcp.ElicitationRequest) (_ *mcp.ElicitationResult, err error) {
	defer e.guard.request(string(mcp.MethodElicitationCreate), &err)
	ctx, cancel := whileAsking(ctx, e.life)
	defer cancel()
	p := req.Params
	form := Form{Server: e.server, Message: p.Message, Mode: p.Mode, URL: p.URL, ElicitationID: p.ElicitationID}
	if form.Mode == "" {
		form.Mode = mcp.ElicitationModeForm
	}
	if form.Mode == mcp.ElicitationModeForm {
		fields, err := ParseForm(p.RequestedSchema)
		if err != nil {
			// Decline, saying why to the server (in _meta: a decline has
			// no other field for it) and to the user; the call goes on
			// and the server can ask differently. An error instead would
			// end a multi-round-trip call without a word to the server.
			why := "freeact cannot show this form: " + err.Error()
			e.tell(Notification{Server: e.server, Kind: "log", Level: "warning",
				Message: fmt.Sprintf("MCP server %q asked for a form freeact cannot show, so it was declined without asking you (the server was told why): %v", e.server, err)})
			res := &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}
			res.Meta = &mcp.Meta{AdditionalFields: map[string]any{DeclinedMeta: why}}
			return res, nil
		}
		form.Fields = fields
	}
	done := e.asking()
	a, err := e.ask(ctx, form)
	done()
	if err != nil {
		return nil, err
	}
	res := &mcp.ElicitationResult{}
	switch a.Action {
	case "accept":
		res.Action = mcp.ElicitationResponseActionAccept
		if form.Mode == mcp.ElicitationModeForm {
			res.Content = WithDefaults(form.Fields, a.Values)
		}
	case "decline":
		res.Action = mcp.ElicitationResponseActionDecline
	case "cancel":
		res.Action = mcp.ElicitationResponseActionCancel
	default:
		return nil, errors.New("the answer to the form is neither accept, decline nor cancel")
	}
	if a.Reason != "" && a.Action != "accept" {
		res.Meta = &mcp.Meta{AdditionalFields: map[string]any{DeclinedMeta: a.Reason}}
	}
	return res, nil
}
