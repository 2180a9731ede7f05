package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/freeact/desktop/internal/strictjson"
)

// Role says who wrote a message.
type Role string

const (
	// RoleUser marks what the user and the tools send: prompts, images and
	// function responses.
	RoleUser Role = "user"
	// RoleModel marks what the model sends: text, thoughts and function calls.
	RoleModel Role = "model"
)

// Message is one entry of a conversation. Its JSON form is what session files
// store, so field names are stable and every field round-trips.
type Message struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"parts"`
	// Model is the "provider:name" that produced a model message.
	Model string `json:"model,omitempty"`
	// Usage is the token count of the call that produced a model message.
	Usage *Usage `json:"usage,omitempty"`
	// Stop says why the model stopped; empty for user messages.
	Stop StopReason `json:"stop,omitempty"`
}

// Part is one piece of a message. Exactly one of Text (with or without
// Thought), Image, FunctionCall or FunctionResponse is the part's content; a
// text part may be empty when it only carries a Signature.
type Part struct {
	Text    string `json:"text,omitempty"`
	Thought bool   `json:"thought,omitempty"`

	Image            *Image            `json:"image,omitempty"`
	FunctionCall     *FunctionCall     `json:"function_call,omitempty"`
	FunctionResponse *FunctionResponse `json:"function_response,omitempty"`

	// Signature is an opaque token the provider attached to this part (Gemini's
	// thoughtSignature). It must be sent back unchanged with the part in later
	// requests; Gemini 3 rejects a function call from the current turn that
	// comes back without it.
	Signature []byte `json:"signature,omitempty"`

	// Ran records, on the text part of a note of a cell the user ran, the
	// code that ran in the main kernel (FunctionResponse.Ran does for a
	// code action).
	// The agent writes it; no model, tool or cell output can produce it,
	// so replays read the code that ran from here, never from text.
	// Providers do not send it.
	Ran *Ran `json:"ran,omitempty"`

	// User marks the text the user sent as a prompt. The agent's notes to
	// the model (a revert, a cut reply, a failed turn, a cell the user
	// ran) go in parts without it, and only those are read as notes: a
	// prompt that starts like one stays the user's words. Sessions of
	// earlier versions lack it; their notes are told by their tags alone.
	// Providers do not send it.
	User bool `json:"user,omitempty"`
}

// Ran is the record of code that ran in the kernel (Part.Ran).
type Ran struct {
	// By is who ran it when not the model as it wrote it: "edited" (the
	// user edited the code action before approving it), "rerun" or
	// "notebook" (the user's own cells); "" for the model's code.
	By string `json:"by,omitempty"`
	// Of is the cell a rerun ran again, or a notebook cell's id.
	Of   string `json:"of,omitempty"`
	Code string `json:"code"`
	// Error: it raised, was rejected or interrupted.
	Error bool `json:"error,omitempty"`
	// Seal is a MAC over the whole record (every field but Seal) under a
	// key of the workspace kept outside it (agent/seal): a record changed
	// outside the app no longer matches it. A seal of a session written
	// before ("" or without the "v2:" prefix) covers By, Of, Code and
	// Error only.
	Seal string `json:"seal,omitempty"`

	// What a cell the user ran showed, so that a resumed session shows it
	// again (the model's code actions keep theirs in FunctionResponse).
	// They are shown only from a record whose seal covers them.
	//
	// Run is the id the cell ran under: its events' correlation id and
	// its checkpoint record's call, which holds the files it changed.
	Run string `json:"run,omitempty"`
	// Original is the code before the user edited it at its approval;
	// "" when it ran as asked.
	Original string `json:"original,omitempty"`
	// Images are the paths of the images its output saved.
	Images []string `json:"images,omitempty"`
	// ElapsedMS is how long it ran, in milliseconds.
	ElapsedMS int64 `json:"elapsed_ms,omitempty"`
	// Approved says who let the code action run without a click; nil
	// when the user approved it (or in a session written before).
	Approved *Approved `json:"approved,omitempty"`
}

// Approved records who let a call run without a click, so that a
// resumed conversation shows its badge as a live one did: By is one of
// event's By* kinds (rule, session, skip, hook, sandbox, read_only,
// judge), Reason the judge's reason, Rule the rule or grant's pattern.
type Approved struct {
	By     string `json:"by"`
	Reason string `json:"reason,omitempty"`
	Rule   string `json:"rule,omitempty"`
}

// Image is inline media: raw bytes plus their MIME type. Mostly an image;
// a PDF, audio or video for the models that take them (AcceptsMedia).
type Image struct {
	MIMEType string `json:"mime_type"`
	Data     []byte `json:"data"`
}

// FunctionCall is a tool call the model asked for.
type FunctionCall struct {
	// ID ties the call to its response. Providers that do not send one get an
	// ID from NewCallID, so it is never empty in a finished message.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Args is the JSON object of arguments, compact. When a provider sent
	// arguments that are not valid JSON, Args holds them as a JSON string so
	// the tool can report the problem to the model.
	Args json.RawMessage `json:"args"`
}

// FunctionResponse is the result of a FunctionCall, sent back to the model.
type FunctionResponse struct {
	ID      string  `json:"id,omitempty"`
	Name    string  `json:"name"`
	Output  string  `json:"output"`
	Images  []Image `json:"images,omitempty"`
	IsError bool    `json:"is_error,omitempty"`
	// Ran records, for a code action, the code that ran (see Part.Ran).
	Ran *Ran `json:"ran,omitempty"`
	// ElapsedMS is how long the call ran, in milliseconds, for the
	// conversation's record; 0 when it did not run. Not sent to models.
	ElapsedMS int64 `json:"elapsed_ms,omitempty"`
	// SavedPath is the file the whole output was saved to when it was too
	// large to give inline (Output is then the notice that names it),
	// relative to the workspace; set by the agent, never read from
	// Output. Not sent to models.
	SavedPath string `json:"saved_path,omitempty"`
	// Approved says who let the call run without a click, for the
	// conversation's record; nil when the user approved it. A code
	// action keeps it in its sealed Ran instead. Not sent to models.
	Approved *Approved `json:"approved,omitempty"`
}

// Usage counts the tokens of one model call. OutputTokens excludes
// ThinkingTokens, whatever the provider's own convention.
type Usage struct {
	InputTokens    int `json:"input_tokens"`
	OutputTokens   int `json:"output_tokens"`
	ThinkingTokens int `json:"thinking_tokens"`
	CachedTokens   int `json:"cached_tokens,omitempty"`
}

// Cut reports whether the reply was cut off at the output token limit
// (max_tokens): it may be incomplete.
func (m Message) Cut() bool { return m.Stop == StopMaxTokens }

// StopReason says why a model stopped producing output.
type StopReason string

const (
	StopEnd       StopReason = "end"        // finished normally (or to call tools)
	StopMaxTokens StopReason = "max_tokens" // ran into the output token limit
	StopSafety    StopReason = "safety"     // stopped by a content filter
	StopOther     StopReason = "other"      // anything else the provider reported
)

// UserText returns a user message holding one text part.
func UserText(text string) Message {
	return Message{Role: RoleUser, Parts: []Part{{Text: text}}}
}

// UserMessage returns a user message with text followed by images.
func UserMessage(text string, images ...Image) Message {
	m := Message{Role: RoleUser}
	if text != "" || len(images) == 0 {
		m.Parts = append(m.Parts, Part{Text: text})
	}
	for _, img := range images {
		m.Parts = append(m.Parts, Part{Image: &img})
	}
	return m
}

// ToolResults returns the user message that answers a model message's
// function calls.
func ToolResults(responses ...FunctionResponse) Message {
	m := Message{Role: RoleUser, Parts: make([]Part, len(responses))}
	for i, r := range responses {
		m.Parts[i] = Part{FunctionResponse: &r}
	}
	return m
}

// Text returns the message's non-thought text, joined.
func (m Message) Text() string { return m.joinText(false) }

// Thoughts returns the message's thought text, joined.
func (m Message) Thoughts() string { return m.joinText(true) }

func (m Message) joinText(thought bool) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.isText() && p.Thought == thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// FunctionCalls returns the calls in the message, in order.
func (m Message) FunctionCalls() []FunctionCall {
	var calls []FunctionCall
	for _, p := range m.Parts {
		if p.FunctionCall != nil {
			calls = append(calls, *p.FunctionCall)
		}
	}
	return calls
}

// FunctionResponses returns the responses in the message, in order.
func (m Message) FunctionResponses() []FunctionResponse {
	var rs []FunctionResponse
	for _, p := range m.Parts {
		if p.FunctionResponse != nil {
			rs = append(rs, *p.FunctionResponse)
		}
	}
	return rs
}

func (p Part) isText() bool {
	return p.Image == nil && p.FunctionCall == nil && p.FunctionResponse == nil
}

// Validate reports what is wrong with a message, if anything.
func (m Message) Validate() error {
	if m.Role != RoleUser && m.Role != RoleModel {
		return fmt.Errorf("message role %q: want %q or %q", m.Role, RoleUser, RoleModel)
	}
	for i, p := range m.Parts {
		if err := p.validate(m.Role); err != nil {
			return fmt.Errorf("part %d: %w", i, err)
		}
	}
	return nil
}

func (p Part) validate(role Role) error {
	n := 0
	for _, set := range []bool{p.Image != nil, p.FunctionCall != nil, p.FunctionResponse != nil} {
		if set {
			n++
		}
	}
	switch {
	case n > 1:
		return errors.New("holds more than one of image, function_call, function_response")
	case n == 1 && (p.Text != "" || p.Thought):
		return errors.New("holds text next to an image, function call or function response")
	case p.Image != nil && (p.Image.MIMEType == "" || len(p.Image.Data) == 0):
		return errors.New("image needs mime_type and data")
	case p.FunctionCall != nil:
		if role != RoleModel {
			return errors.New("function_call in a user message")
		}
		if p.FunctionCall.Name == "" {
			return errors.New("function_call without a name")
		}
		if !json.Valid(p.FunctionCall.Args) {
			return fmt.Errorf("function_call %s: args are not JSON", p.FunctionCall.Name)
		}
	case p.FunctionResponse != nil:
		if role != RoleUser {
			return errors.New("function_response in a model message")
		}
		if p.FunctionResponse.Name == "" {
			return errors.New("function_response without a name")
		}
	}
	return nil
}

// UnmarshalJSON decodes a message and rejects unknown fields and malformed
// parts, so a damaged session line is reported rather than half-loaded.
func (m *Message) UnmarshalJSON(data []byte) error {
	type plain Message
	var v plain
	if err := strictjson.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("decode message: %w", err)
	}
	if err := Message(v).Validate(); err != nil {
		return fmt.Errorf("decode message: %w", err)
	}
	*m = Message(v)
	return nil
}

// ArgsJSON turns raw argument text from a provider into the Args of a
// FunctionCall: compact JSON when it parses (an empty text means no
// arguments), else the text as a JSON string.
func ArgsJSON(raw []byte) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return json.RawMessage(`{}`)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err == nil {
		return b.Bytes()
	}
	s, _ := json.Marshal(string(raw))
	return s
}
