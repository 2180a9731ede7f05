// Package modeltest fakes language models at the wire, for tests of any
// package: httptest servers that speak the Gemini streaming REST endpoint
// (streamGenerateContent?alt=sse), OpenAI streaming chat completions and
// Anthropic's streaming Messages API. Each plays a Scenario, one
// conversation: what the model sends for each request and what the request
// must contain. A scenario file looks like this:
//
//	name: code action
//	turns:
//	  - expect:                       # checked against request 1
//	      tools: [ipybox_execute_ipython_cell]
//	      last: [{role: user, text: "What is 2+2?"}]
//	    reply:                        # streamed back, one part an event
//	      - thought: "Simple sum."
//	      - call: {name: ipybox_execute_ipython_cell, args: {code: "print(2+2)"}}
//	        signature: sig-1          # Gemini thoughtSignature / Claude signature
//	    usage: {input: 100, output: 20, thinking: 10}
//	  - expect:                       # request 2 must return the signature
//	      has: [{role: model, call: ipybox_execute_ipython_cell, signature: sig-1}]
//	      last: [{role: user, response: ipybox_execute_ipython_cell, output: "4"}]
//	    reply: [{text: "It is 4."}]
//	  - error: {status: 429, message: "slow down", retry_after: 1s}
//	  - reply: [{text: "partial"}]
//	    then: hang                    # or malformed, cut
//
// Mismatches, extra requests and turns never requested fail the test.
package modeltest

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/freeact/desktop/agent/model"
)

// Scenario is one scripted conversation. Each request the server gets takes
// the next Turn; a request beyond the last turn is answered with HTTP 500 and
// reported as a test failure, as is a turn left unplayed when the test ends
// (unless AllowUnplayed).
type Scenario struct {
	Name          string `yaml:"name"`
	Turns         []Turn `yaml:"turns"`
	AllowUnplayed bool   `yaml:"allow_unplayed"`
}

// Turn is the server's answer to one request.
type Turn struct {
	// Expect is checked against the request; mismatches fail the test.
	Expect *Expect `yaml:"expect"`
	// Error answers with an HTTP error instead of a stream.
	Error *ErrorReply `yaml:"error"`
	// Reply is streamed one part an event.
	Reply []ReplyPart `yaml:"reply"`
	Usage *Usage      `yaml:"usage"`
	// Finish is why the model stopped: stop (default), max_tokens or
	// safety; none ends the stream in good order without giving a reason
	// (Gemini: no finishReason, OpenAI: [DONE] without finish_reason,
	// Anthropic: message_stop after a message_delta without stop_reason).
	Finish string `yaml:"finish"`
	// Delay is waited before each event.
	Delay time.Duration `yaml:"delay"`
	// Then is what happens after the reply: "" ends the stream properly;
	// "malformed" sends an event that is not JSON; "cut" drops the
	// connection; "hang" keeps it open until the client goes away.
	Then string `yaml:"then"`
}

// ReplyPart is one part of the model's reply: a thought, a text or a call,
// with an optional thought signature (plain text here, bytes on the wire).
type ReplyPart struct {
	Thought   string     `yaml:"thought"`
	Text      string     `yaml:"text"`
	Call      *CallReply `yaml:"call"`
	Signature string     `yaml:"signature"`
}

// CallReply is a function call the model makes.
type CallReply struct {
	ID   string         `yaml:"id"`
	Name string         `yaml:"name"`
	Args map[string]any `yaml:"args"`
	// Raw, instead of Args, is the argument text as streamed, such as
	// half an object from a reply cut at max_tokens (OpenAI and Anthropic
	// wires; Gemini sends calls whole, so it leaves such a call out).
	Raw string `yaml:"raw"`
}

// argsText is the call's argument text on the wire.
func (c *CallReply) argsText() []byte {
	if c.Raw != "" {
		return []byte(c.Raw)
	}
	if c.Args == nil {
		return []byte("{}")
	}
	args, _ := json.Marshal(c.Args)
	return args
}

// ErrorReply is an HTTP error answer.
type ErrorReply struct {
	Status     int           `yaml:"status"`
	Message    string        `yaml:"message"`
	RetryAfter time.Duration `yaml:"retry_after"`
	// Body, when set, is sent as the response body as it is, such as one
	// a real server sent (JSON; Message is then not used).
	Body string `yaml:"body"`
}

// Usage is the token count the server reports.
type Usage struct {
	Input    int `yaml:"input"`
	Output   int `yaml:"output"`
	Thinking int `yaml:"thinking"`
	// Cached input tokens, counted in Input; each wire reports them in
	// its provider's own shape.
	Cached int `yaml:"cached"`
}

// Expect holds assertions on a request. Empty fields are not checked.
type Expect struct {
	Model          string   `yaml:"model"`           // model name requested
	SystemContains string   `yaml:"system_contains"` // substring of the system prompt
	Tools          []string `yaml:"tools"`           // names that must be offered
	Messages       int      `yaml:"messages"`        // exact number of messages, if > 0
	// IncludeThoughts, when set, must equal the thinking config sent (Gemini).
	IncludeThoughts *bool `yaml:"include_thoughts"`
	// Has must each match some part of some message of the history.
	Has []Match `yaml:"has"`
	// Last must each match some part of the last message.
	Last []Match `yaml:"last"`
}

// Match describes a part. Set fields must all hold.
type Match struct {
	Role      string         `yaml:"role" json:"role,omitempty"`           // user or model
	Text      string         `yaml:"text" json:"text,omitempty"`           // substring of a text part
	Thought   string         `yaml:"thought" json:"thought,omitempty"`     // substring of a thought part
	Image     bool           `yaml:"image" json:"image,omitempty"`         // an image (or other media) part
	MIME      string         `yaml:"mime" json:"mime,omitempty"`           // ...of this MIME type (a media part, or a response's media)
	Call      string         `yaml:"call" json:"call,omitempty"`           // a function call of this name
	Args      map[string]any `yaml:"args" json:"args,omitempty"`           // ...with these arguments (a subset)
	Signature string         `yaml:"signature" json:"signature,omitempty"` // ...carrying this thought signature
	Response  string         `yaml:"response" json:"response,omitempty"`   // a function response of this name
	Output    string         `yaml:"output" json:"output,omitempty"`       // ...whose output contains this
	IsError   *bool          `yaml:"is_error" json:"is_error,omitempty"`   // ...flagged (or not) as an error
	Images    int            `yaml:"images" json:"images,omitempty"`       // ...with this many images
}

// Request is what a fake server received, decoded into provider-neutral
// form.
type Request struct {
	Path            string
	Model           string
	APIKey          string
	System          string
	Tools           []model.Tool
	Messages        []model.Message
	IncludeThoughts bool
	Body            []byte // the raw JSON body
}

// ParseScenario decodes a scenario from YAML (or JSON).
func ParseScenario(data []byte) (Scenario, error) {
	var sc Scenario
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&sc); err != nil {
		return Scenario{}, fmt.Errorf("parse scenario: %w", err)
	}
	for i, t := range sc.Turns {
		if err := t.validate(); err != nil {
			return Scenario{}, fmt.Errorf("parse scenario %q: turn %d: %w", sc.Name, i+1, err)
		}
	}
	return sc, nil
}

// LoadScenario reads a scenario file; errors fail the test at once.
func LoadScenario(t interface {
	Helper()
	Fatalf(string, ...any)
}, path string) Scenario {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("load scenario: %v", err)
	}
	sc, err := ParseScenario(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if sc.Name == "" {
		sc.Name = path
	}
	return sc
}

func (t Turn) validate() error {
	switch t.Then {
	case "", "malformed", "cut", "hang":
	default:
		return fmt.Errorf("then %q: want malformed, cut or hang", t.Then)
	}
	switch t.Finish {
	case "", "stop", "max_tokens", "safety", "none":
	default:
		return fmt.Errorf("finish %q: want stop, max_tokens, safety or none", t.Finish)
	}
	if t.Error != nil && (t.Error.Status < 400 || len(t.Reply) > 0) {
		return fmt.Errorf("error needs a status >= 400 and no reply")
	}
	for i, p := range t.Reply {
		n := 0
		for _, set := range []bool{p.Thought != "", p.Text != "", p.Call != nil} {
			if set {
				n++
			}
		}
		if n != 1 && !(n == 0 && p.Signature != "") {
			return fmt.Errorf("reply part %d: set exactly one of thought, text, call", i+1)
		}
		if p.Call != nil && p.Call.Name == "" {
			return fmt.Errorf("reply part %d: call without a name", i+1)
		}
	}
	return nil
}

// check returns what in the request does not meet the expectation.
func (e *Expect) check(r Request) []string {
	if e == nil {
		return nil
	}
	var errs []string
	if e.Model != "" && r.Model != e.Model {
		errs = append(errs, fmt.Sprintf("model is %q, want %q", r.Model, e.Model))
	}
	if e.SystemContains != "" && !strings.Contains(r.System, e.SystemContains) {
		errs = append(errs, fmt.Sprintf("system prompt %q does not contain %q", r.System, e.SystemContains))
	}
	for _, name := range e.Tools {
		found := false
		for _, tool := range r.Tools {
			found = found || tool.Name == name
		}
		if !found {
			errs = append(errs, fmt.Sprintf("tool %q not offered", name))
		}
	}
	if e.Messages > 0 && len(r.Messages) != e.Messages {
		errs = append(errs, fmt.Sprintf("got %d messages, want %d", len(r.Messages), e.Messages))
	}
	if e.IncludeThoughts != nil && r.IncludeThoughts != *e.IncludeThoughts {
		errs = append(errs, fmt.Sprintf("include_thoughts is %v, want %v", r.IncludeThoughts, *e.IncludeThoughts))
	}
	for _, m := range e.Has {
		if !matchAny(m, r.Messages) {
			errs = append(errs, fmt.Sprintf("no part in the history matches %s", m))
		}
	}
	if len(e.Last) > 0 {
		if len(r.Messages) == 0 {
			errs = append(errs, "no messages, want a last message")
		} else {
			for _, m := range e.Last {
				if !matchAny(m, r.Messages[len(r.Messages)-1:]) {
					errs = append(errs, fmt.Sprintf("no part of the last message matches %s", m))
				}
			}
		}
	}
	return errs
}

func matchAny(m Match, msgs []model.Message) bool {
	for _, msg := range msgs {
		if m.Role != "" && string(msg.Role) != m.Role {
			continue
		}
		for _, p := range msg.Parts {
			if m.matches(p) {
				return true
			}
		}
	}
	return false
}

func (m Match) matches(p model.Part) bool {
	if m.Signature != "" && string(p.Signature) != m.Signature {
		return false
	}
	switch {
	case m.Call != "":
		return p.FunctionCall != nil && p.FunctionCall.Name == m.Call && argsContain(p.FunctionCall.Args, m.Args)
	case m.Response != "":
		r := p.FunctionResponse
		return r != nil && r.Name == m.Response && strings.Contains(r.Output, m.Output) &&
			(m.IsError == nil || *m.IsError == r.IsError) && (m.Images == 0 || len(r.Images) == m.Images) &&
			(m.MIME == "" || slices.ContainsFunc(r.Images, func(im model.Image) bool { return im.MIMEType == m.MIME }))
	case m.Image || m.MIME != "":
		return p.Image != nil && (m.MIME == "" || p.Image.MIMEType == m.MIME)
	case m.Thought != "":
		return p.Thought && strings.Contains(p.Text, m.Thought)
	case m.Text != "":
		return !p.Thought && p.Image == nil && p.FunctionCall == nil && p.FunctionResponse == nil && strings.Contains(p.Text, m.Text)
	}
	return m.Signature != ""
}

// argsContain reports whether every key of want is in args with an equal
// value (compared as JSON).
func argsContain(args json.RawMessage, want map[string]any) bool {
	if len(want) == 0 {
		return true
	}
	var got map[string]any
	if json.Unmarshal(args, &got) != nil {
		return false
	}
	for k, v := range want {
		wb, _ := json.Marshal(v)
		var wv any
		_ = json.Unmarshal(wb, &wv)
		if !reflect.DeepEqual(got[k], wv) {
			return false
		}
	}
	return true
}

func (m Match) String() string {
	b, _ := json.Marshal(m)
	return string(b)
}
