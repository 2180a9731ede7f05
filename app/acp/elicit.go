package acp

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/freeact/desktop/agent/mcp"
)

// elicit shows an MCP server's form in the client where it takes forms
// (elicitation.form, an unstable part of ACP); otherwise, and for a
// URL-mode request, it is declined with the reason given to the server.
// An accepted answer is checked against the form's fields as the window's
// and the terminal's are.
func (ss *acpSession) elicit(ctx context.Context, f mcp.Form) (mcp.Answer, error) {
	ss.srv.mu.Lock()
	caps := ss.srv.client.Elicitation
	ss.srv.mu.Unlock()
	if caps == nil || caps.Form == nil {
		return mcp.Answer{Action: "decline", Reason: "the ACP client freeact runs in takes no forms (it does not offer elicitation)"}, nil
	}
	if f.Mode != "form" {
		return mcp.Answer{Action: "decline", Reason: "freeact acp passes on forms, not links to open"}, nil
	}
	req := sdk.NewUnstableCreateElicitationRequestForm(formSchema(f.Fields))
	req.Form.Message = fmt.Sprintf("The MCP server %s asks: %s", f.Server, f.Message)
	resp, err := ss.srv.conn.UnstableCreateElicitation(ctx, req)
	switch {
	case err != nil:
		return mcp.Answer{Action: "cancel", Reason: "the ACP client did not answer the form: " + err.Error()}, nil
	case resp.Accept != nil:
		values, err := mcp.CheckAnswer(f.Fields, resp.Accept.Content)
		if err != nil {
			return mcp.Answer{Action: "decline", Reason: "the ACP client's answer does not fit the form: " + err.Error()}, nil
		}
		return mcp.Answer{Action: "accept", Values: values}, nil
	case resp.Decline != nil:
		return mcp.Answer{Action: "decline"}, nil
	}
	return mcp.Answer{Action: "cancel"}, nil
}

// formSchema is the requested schema of the form's fields, as MCP and ACP
// write it: a flat object of primitive properties.
func formSchema(fields []mcp.Field) sdk.UnstableElicitationSchema {
	s := sdk.UnstableElicitationSchema{Type: "object", Properties: map[string]any{}}
	for _, f := range fields {
		p := map[string]any{"type": f.Type}
		set := func(k string, v any, ok bool) {
			if ok {
				p[k] = v
			}
		}
		set("title", f.Title, f.Title != "")
		set("description", f.Description, f.Description != "")
		set("format", f.Format, f.Format != "")
		set("default", f.Default, f.Default != nil)
		set("minimum", f.Minimum, f.Minimum != nil)
		set("maximum", f.Maximum, f.Maximum != nil)
		set("minLength", f.MinLength, f.MinLength != nil)
		set("maxLength", f.MaxLength, f.MaxLength != nil)
		if len(f.Options) > 0 {
			one := []map[string]string{}
			for _, o := range f.Options {
				one = append(one, map[string]string{"const": o.Value, "title": o.Title})
			}
			if f.Multi {
				p["type"] = "array"
				p["items"] = map[string]any{"anyOf": one}
				set("minItems", f.MinItems, f.MinItems != nil)
				set("maxItems", f.MaxItems, f.MaxItems != nil)
			} else {
				p["oneOf"] = one
			}
		}
		s.Properties[f.Name] = p
		if f.Required {
			s.Required = append(s.Required, f.Name)
		}
	}
	return s
}
