package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/freeact/desktop/agent/model"
)

// The Gemini REST shapes, written out here rather than borrowed from genai so
// that the fake checks the client against the documented wire format.
type gRequest struct {
	Contents          []gContent `json:"contents"`
	SystemInstruction *gContent  `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []struct {
			Name                 string          `json:"name"`
			Description          string          `json:"description"`
			ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ThinkingConfig *struct {
			IncludeThoughts bool `json:"includeThoughts"`
		} `json:"thinkingConfig"`
	} `json:"generationConfig"`
}

type gContent struct {
	Role  string  `json:"role,omitempty"`
	Parts []gPart `json:"parts"`
}

type gPart struct {
	Text             string     `json:"text,omitempty"`
	Thought          bool       `json:"thought,omitempty"`
	ThoughtSignature []byte     `json:"thoughtSignature,omitempty"`
	InlineData       *gBlob     `json:"inlineData,omitempty"`
	FunctionCall     *gCall     `json:"functionCall,omitempty"`
	FunctionResponse *gResponse `json:"functionResponse,omitempty"`
}

type gBlob struct {
	MIMEType string `json:"mimeType"`
	Data     []byte `json:"data"`
}

type gCall struct {
	ID   string         `json:"id,omitempty"`
	Name string         `json:"name"`
	Args map[string]any `json:"args,omitempty"`
}

type gResponse struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
	Parts    []struct {
		InlineData *gBlob `json:"inlineData"`
	} `json:"parts,omitempty"`
}

type geminiWire struct{}

func (geminiWire) decode(r *http.Request, body []byte) (Request, error) {
	name, ok := strings.CutSuffix(r.URL.Path, ":streamGenerateContent")
	if !ok || r.Method != http.MethodPost || r.URL.Query().Get("alt") != "sse" {
		return Request{}, fmt.Errorf("not POST .../models/NAME:streamGenerateContent?alt=sse")
	}
	_, name, ok = strings.Cut(name, "/models/")
	if !ok {
		return Request{}, fmt.Errorf("path %q has no /models/", r.URL.Path)
	}
	var gr gRequest
	if err := json.Unmarshal(body, &gr); err != nil {
		return Request{}, fmt.Errorf("decode body: %w", err)
	}
	req := Request{Path: r.URL.Path, Model: name, APIKey: r.Header.Get("x-goog-api-key"), Body: body}
	if gr.SystemInstruction != nil {
		for _, p := range gr.SystemInstruction.Parts {
			req.System += p.Text
		}
	}
	for _, t := range gr.Tools {
		for _, d := range t.FunctionDeclarations {
			req.Tools = append(req.Tools, model.Tool{Name: d.Name, Description: d.Description, Parameters: d.ParametersJSONSchema})
		}
	}
	if tc := gr.GenerationConfig.ThinkingConfig; tc != nil {
		req.IncludeThoughts = tc.IncludeThoughts
	}
	for i, c := range gr.Contents {
		m, err := c.message()
		if err != nil {
			return Request{}, fmt.Errorf("contents[%d]: %w", i, err)
		}
		req.Messages = append(req.Messages, m)
	}
	return req, nil
}

func (c gContent) message() (model.Message, error) {
	if c.Role != "user" && c.Role != "model" {
		return model.Message{}, fmt.Errorf("role %q", c.Role)
	}
	if len(c.Parts) == 0 {
		return model.Message{}, fmt.Errorf("no parts")
	}
	m := model.Message{Role: model.Role(c.Role)}
	for _, p := range c.Parts {
		mp := model.Part{Signature: p.ThoughtSignature}
		switch {
		case p.FunctionCall != nil:
			args, err := json.Marshal(p.FunctionCall.Args)
			if err != nil {
				return model.Message{}, err
			}
			mp.FunctionCall = &model.FunctionCall{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Args: args}
		case p.FunctionResponse != nil:
			fr := p.FunctionResponse
			out := &model.FunctionResponse{ID: fr.ID, Name: fr.Name}
			if v, ok := fr.Response["error"]; ok {
				out.IsError = true
				out.Output = fmt.Sprint(v)
			} else {
				out.Output = fmt.Sprint(fr.Response["output"])
			}
			for _, rp := range fr.Parts {
				if rp.InlineData != nil {
					out.Images = append(out.Images, model.Image{MIMEType: rp.InlineData.MIMEType, Data: rp.InlineData.Data})
				}
			}
			mp.FunctionResponse = out
		case p.InlineData != nil:
			mp.Image = &model.Image{MIMEType: p.InlineData.MIMEType, Data: p.InlineData.Data}
		default:
			mp.Text, mp.Thought = p.Text, p.Thought
		}
		m.Parts = append(m.Parts, mp)
	}
	return m, nil
}

func (geminiWire) writeError(w http.ResponseWriter, e ErrorReply) {
	body := map[string]any{"code": e.Status, "message": e.Message, "status": statusWord(e.Status)}
	if e.RetryAfter > 0 {
		body["details"] = []map[string]any{{
			"@type":      "type.googleapis.com/google.rpc.RetryInfo",
			"retryDelay": fmt.Sprintf("%gs", e.RetryAfter.Seconds()),
		}}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": body})
}

func (geminiWire) events(turn Turn, n int) []string {
	finish := map[string]string{"": "STOP", "stop": "STOP", "max_tokens": "MAX_TOKENS", "safety": "SAFETY"}[turn.Finish]
	parts := turn.Reply
	if len(parts) == 0 {
		parts = []ReplyPart{{}} // a stream always has at least one event
	}
	var events []string
	for i, p := range parts {
		gp := gPart{Text: p.Text, ThoughtSignature: []byte(p.Signature)}
		switch {
		case p.Thought != "":
			gp.Text, gp.Thought = p.Thought, true
		case p.Call != nil && p.Call.Raw != "":
			// Gemini sends a call whole or not at all.
		case p.Call != nil:
			gp.FunctionCall = &gCall{ID: p.Call.ID, Name: p.Call.Name, Args: p.Call.Args}
		}
		cand := map[string]any{"content": gContent{Role: "model", Parts: []gPart{gp}}, "index": 0}
		ev := map[string]any{"candidates": []any{cand}, "modelVersion": "fake-gemini", "responseId": fmt.Sprintf("fake-%d", n+1)}
		last := i == len(parts)-1
		if last && turn.Then == "" && turn.Finish != "none" {
			cand["finishReason"] = finish
		}
		if last && turn.Usage != nil {
			u := turn.Usage
			ev["usageMetadata"] = map[string]int{
				"promptTokenCount":     u.Input,
				"candidatesTokenCount": u.Output,
				"thoughtsTokenCount":   u.Thinking,
				"totalTokenCount":      u.Input + u.Output + u.Thinking,
			}
			if u.Cached > 0 {
				ev["usageMetadata"].(map[string]int)["cachedContentTokenCount"] = u.Cached
			}
		}
		events = append(events, frame("", ev))
	}
	return events
}
