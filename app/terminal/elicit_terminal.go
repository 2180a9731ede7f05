package terminal

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/internal/opener"
	"github.com/freeact/desktop/internal/visible"
)

// terminalForms asks the user in the terminal for what an MCP server
// requests (elicitation). It is bound to the terminal once that exists;
// mu keeps two servers' forms from interleaving.
type terminalForms struct {
	mu sync.Mutex
	t  *terminal
}

func (f *terminalForms) ask(ctx context.Context, form mcp.Form) (mcp.Answer, error) {
	if f.t != nil && f.t.json {
		return f.t.qs.formJSON(ctx, form)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.t
	if t == nil {
		return mcp.Answer{Action: "decline"}, nil
	}
	if !t.take(ctx, nil, fmt.Sprintf("a form of MCP server %s", visible.Line(strconv.Quote(form.Server)))) {
		return mcp.Answer{Action: "cancel"}, nil
	}
	defer t.give()
	say := func(s string) { t.write(s); t.lineStart = strings.HasSuffix(s, "\n") }
	read := func(prompt string) (string, bool) {
		say(prompt)
		t.lineStart = true
		return t.readLine(ctx, nil, nil)
	}
	if !t.lineStart {
		say("\n")
	}
	// What the server wrote is shown on one line each: it cannot print a
	// line that passes for the terminal's own prompts.
	say(t.style.cyan(fmt.Sprintf("MCP server %s asks: ", visible.Line(strconv.Quote(form.Server)))) + visible.Line(form.Message) + "\n")
	if form.Mode == "url" {
		link, bad := opener.CheckURL(form.URL)
		if bad != nil {
			say("It asks you to open " + visible.Line(form.URL) + "\n")
			say(t.style.yellow(visible.Line(bad.Error())) + "\n")
			line, ok := read("Decline it? [Y/c(ancel)] ")
			if a := strings.ToLower(strings.TrimSpace(line)); !ok || a == "c" || a == "cancel" {
				return mcp.Answer{Action: "cancel"}, nil
			}
			return mcp.Answer{Action: "decline"}, nil
		}
		say("It asks you to open a page on " + t.style.bold(visible.Line(link.Host)) + ":\n  " + visible.Line(link.URL) + "\n")
		line, ok := read("Open it in the browser? [y/N/c(ancel)] ")
		switch a := strings.ToLower(strings.TrimSpace(line)); {
		case !ok || a == "c" || a == "cancel":
			return mcp.Answer{Action: "cancel"}, nil
		case a == "y" || a == "yes":
			if _, err := (opener.Opener{}).OpenURL(ctx, link.URL); err != nil {
				say("(" + visible.Line(err.Error()) + ")\n")
			}
			return mcp.Answer{Action: "accept"}, nil
		}
		return mcp.Answer{Action: "decline"}, nil
	}
	line, ok := read("Answer it? [y/N/c(ancel)] ")
	switch a := strings.ToLower(strings.TrimSpace(line)); {
	case !ok || a == "c" || a == "cancel":
		return mcp.Answer{Action: "cancel"}, nil
	case a != "y" && a != "yes":
		return mcp.Answer{Action: "decline"}, nil
	}
	values := map[string]any{}
	for _, fl := range form.Fields {
		for {
			line, ok := read(fieldPrompt(t, fl))
			if !ok {
				return mcp.Answer{Action: "cancel"}, nil
			}
			v, err := fieldValue(fl, strings.TrimSpace(line))
			if err != nil {
				say(t.style.yellow(visible.Line(err.Error())) + "\n")
				continue
			}
			if v != nil {
				values[fl.Name] = v
			}
			break
		}
	}
	return mcp.Answer{Action: "accept", Values: values}, nil
}

// fieldPrompt describes a field: title, description, choices, default.
func fieldPrompt(t *terminal, f mcp.Field) string {
	var b strings.Builder
	title := f.Title
	if title == "" {
		title = f.Name
	}
	b.WriteString(t.style.bold(visible.Line(title)))
	if f.Description != "" {
		b.WriteString(" — " + visible.Line(f.Description))
	}
	b.WriteString("\n")
	for i, o := range f.Options {
		fmt.Fprintf(&b, "  %d. %s\n", i+1, visible.Line(o.Title))
	}
	switch {
	case f.Multi:
		b.WriteString("  numbers separated by commas")
	case len(f.Options) > 0:
		b.WriteString("  a number")
	case f.Type == "boolean":
		b.WriteString("  y or n")
	}
	if f.Default != nil {
		fmt.Fprintf(&b, " [default: %s]", visible.Line(fmt.Sprint(f.Default)))
	} else if !f.Required {
		b.WriteString(" [optional]")
	}
	b.WriteString(": ")
	return b.String()
}

// fieldValue reads a typed answer; nil for an empty one (the default or
// nothing). A required field without a default must be answered.
func fieldValue(f mcp.Field, s string) (any, error) {
	if s == "" {
		if f.Required && f.Default == nil {
			return nil, fmt.Errorf("%s is required", f.Name)
		}
		return nil, nil
	}
	pick := func(n string) (string, error) {
		i, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil || i < 1 || i > len(f.Options) {
			return "", fmt.Errorf("give a number from 1 to %d", len(f.Options))
		}
		return f.Options[i-1].Value, nil
	}
	switch {
	case f.Multi:
		var out []any
		for _, n := range strings.Split(s, ",") {
			v, err := pick(n)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case len(f.Options) > 0:
		return pick(s)
	}
	switch f.Type {
	case "boolean":
		switch strings.ToLower(s) {
		case "y", "yes", "true":
			return true, nil
		case "n", "no", "false":
			return false, nil
		}
		return nil, fmt.Errorf("answer y or n")
	case "integer":
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", s)
		}
		return i, nil
	case "number":
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", s)
		}
		return x, nil
	}
	return s, nil
}
