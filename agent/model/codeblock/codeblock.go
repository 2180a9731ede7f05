// Package codeblock runs code actions for models without tool calling. A
// model wrapped by Wrap is asked for fenced ```python blocks instead of tool
// calls; each complete block of its reply becomes a call of the code action
// tool, so the agent approves, runs, records and shows it like any other
// code action. Going back to the model, those calls are written as the
// blocks they came from and their results as plain text, so a server whose
// chat template knows nothing of tools gets a conversation it can render.
package codeblock

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/freeact/desktop/agent/model"
)

// Instructions are added to the system prompt of every request.
const Instructions = `## Running code

This model has no tool calls here. To run Python, write it in a fenced block:

` + "```python\nprint(6 * 7)\n```" + `

Each complete block runs as a code action in the stateful IPython kernel, in
the order written, after the user approves it. Write one block per reply when
a step needs the result of the one before; the output comes back in the next
message. Other tools are not called directly: reach them from Python. Reply
without a python block when you are done.`

// Wrap returns m asking for and running fenced python blocks: tool is the
// name of the code action tool (its one argument is "code").
func Wrap(m model.Model, tool string) model.Model {
	return &blocks{m: m, tool: tool}
}

type blocks struct {
	m    model.Model
	tool string
}

func (b *blocks) Name() string { return b.m.Name() }

// AcceptsMedia passes the wrapped model's answer on.
func (b *blocks) AcceptsMedia(mimeType string) bool { return model.AcceptsMedia(b.m, mimeType) }

// Stream sends the request with blocks instead of tools and turns the
// complete python blocks of the reply into calls of the code action tool.
// A request that does not offer that tool (a compaction's) asks for no
// blocks and runs none.
func (b *blocks) Stream(ctx context.Context, req *model.Request) iter.Seq2[model.Chunk, error] {
	code := slices.ContainsFunc(req.Tools, func(t model.Tool) bool { return t.Name == b.tool })
	return func(yield func(model.Chunk, error) bool) {
		for ch, err := range b.m.Stream(ctx, b.request(req, code)) {
			if err != nil {
				yield(nil, err)
				return
			}
			if d, ok := ch.(model.Done); ok && code {
				d.Message.Parts = Calls(d.Message.Parts, b.tool)
				ch = d
			}
			if !yield(ch, nil) {
				return
			}
		}
	}
}

// request rewrites req for a model without tools: the instructions join the
// system prompt (when code runs), tools are left out, and calls and
// results become text.
func (b *blocks) request(req *model.Request, code bool) *model.Request {
	out := &model.Request{System: req.System}
	if code {
		out.System = strings.TrimLeft(req.System+"\n\n"+Instructions, "\n")
	}
	for _, m := range req.Messages {
		out.Messages = append(out.Messages, b.message(m))
	}
	return out
}

func (b *blocks) message(m model.Message) model.Message {
	var parts []model.Part
	// text adds a part of its own, on a line of its own.
	text := func(s string) {
		if n := len(parts); n > 0 && parts[n-1].Text != "" && !strings.HasSuffix(parts[n-1].Text, "\n") {
			s = "\n" + s
		}
		parts = append(parts, model.Part{Text: s})
	}
	for _, p := range m.Parts {
		switch {
		case p.FunctionCall != nil:
			text(b.callText(*p.FunctionCall))
		case p.FunctionResponse != nil:
			text(resultText(*p.FunctionResponse))
			for _, img := range p.FunctionResponse.Images {
				parts = append(parts, model.Part{Image: &img})
			}
		default:
			parts = append(parts, p)
		}
	}
	m.Parts = parts
	return m
}

// callText writes a call back as the block it came from; a call of another
// tool (from a session that used tool calls) as a line naming it.
func (b *blocks) callText(c model.FunctionCall) string {
	var args struct {
		Code *string `json:"code"`
	}
	if c.Name == b.tool && json.Unmarshal(c.Args, &args) == nil && args.Code != nil {
		return Fence(*args.Code)
	}
	return fmt.Sprintf("(called tool %s with %s)\n", c.Name, c.Args)
}

// Fence writes code as a fenced python block, with a fence longer than any
// run of backticks in the code so that the code cannot close it early.
func Fence(code string) string {
	fence := "```"
	for strings.Contains(code, fence) {
		fence += "`"
	}
	return fence + "python\n" + strings.TrimSuffix(code, "\n") + "\n" + fence + "\n"
}

func resultText(r model.FunctionResponse) string {
	head := "Output of the code action:"
	if r.IsError {
		head = "The code action failed:"
	}
	out := r.Output
	if strings.TrimSpace(out) == "" {
		out = "(no output)"
	}
	return head + "\n" + strings.TrimSuffix(out, "\n") + "\n"
}

// Calls splits the text parts of a reply at its complete python blocks:
// each block becomes a call of tool with {"code": ...} in its place, the
// text around it stays. A block without its closing fence (a reply cut off
// at the output limit) stays text and never runs.
func Calls(parts []model.Part, tool string) []model.Part {
	var out []model.Part
	for _, p := range parts {
		if p.Text == "" || p.Thought || p.FunctionCall != nil || p.FunctionResponse != nil || p.Image != nil {
			out = append(out, p)
			continue
		}
		for _, s := range split(p.Text) {
			if s.code == nil {
				out = append(out, model.Part{Text: s.text})
				continue
			}
			args, _ := json.Marshal(map[string]string{"code": *s.code})
			out = append(out, model.Part{FunctionCall: &model.FunctionCall{ID: model.NewCallID(), Name: tool, Args: args}})
		}
	}
	return out
}

// segment is text, or the code of a complete python block.
type segment struct {
	text string
	code *string
}

// split cuts text into prose and complete python blocks. A block opens
// with a line of three or more backticks followed by python, py, python3
// or ipython, and closes with a line of at least as many backticks and
// nothing else. Prose keeps its line ends, so that writing the blocks back
// with Fence gives the text as it came; prose of blank lines is dropped.
func split(text string) []segment {
	var (
		out   []segment
		prose strings.Builder
	)
	flush := func() {
		if strings.TrimSpace(prose.String()) != "" {
			out = append(out, segment{text: prose.String()})
		}
		prose.Reset()
	}
	lines := strings.SplitAfter(text, "\n")
	for i := 0; i < len(lines); i++ {
		fence, ok := opening(lines[i])
		if !ok {
			prose.WriteString(lines[i])
			continue
		}
		end := -1
		for j := i + 1; j < len(lines); j++ {
			if closes(lines[j], fence) {
				end = j
				break
			}
		}
		if end < 0 { // cut off: the rest stays text
			for _, l := range lines[i:] {
				prose.WriteString(l)
			}
			break
		}
		code := strings.Join(lines[i+1:end], "")
		code = strings.TrimSuffix(code, "\n")
		flush()
		if strings.TrimSpace(code) != "" {
			out = append(out, segment{code: &code})
		}
		i = end
	}
	flush()
	return out
}

// opening reports whether line opens a python block, and its fence.
func opening(line string) (string, bool) {
	l := strings.TrimSpace(line)
	n := len(l) - len(strings.TrimLeft(l, "`"))
	if n < 3 {
		return "", false
	}
	switch strings.ToLower(strings.TrimSpace(l[n:])) {
	case "python", "py", "python3", "ipython":
		return l[:n], true
	}
	return "", false
}

func closes(line, fence string) bool {
	l := strings.TrimSpace(line)
	return len(l) >= len(fence) && strings.Trim(l, "`") == ""
}
