package mcpglue

import (
	"context"
	"fmt"
	"slices"

	"github.com/freeact/desktop/agent/mcp"
)

// LargeMention is a resource a request mentions that is larger than the
// mention limit (256 KiB unless WithMentionLimit): Size and Limit in bytes.
type LargeMention struct {
	Server string `json:"server"`
	URI    string `json:"uri"`
	Size   int    `json:"size"`
	Limit  int    `json:"limit"`
}

// ExpandOption changes what Expand attaches.
type ExpandOption func(*mcp.MentionOptions)

// AllowLargeMentions attaches mentioned resources whatever their size.
func AllowLargeMentions() ExpandOption {
	return func(o *mcp.MentionOptions) { o.Allow = func(string, string, int) bool { return true } }
}

// WithMentionLimit sets the size in bytes above which a mentioned
// resource is refused (mcp.DefaultMentionLimit when not given; below 0:
// none).
func WithMentionLimit(n int) ExpandOption {
	return func(o *mcp.MentionOptions) { o.Limit = n }
}

// Expand turns a request into what the model gets: a prompt slash
// command /server:prompt key=value ... into the server's prompt, and
// @server:uri mentions into the resources attached after the text. Text
// with neither comes back as it is. A mentioned resource over the mention
// limit is refused with an *mcp.LargeMentionError (its size, nothing
// sent) unless AllowLargeMentions is given: ask the user first
// (LargeMentions lists them).
func (h *Hub) Expand(ctx context.Context, text string, opts ...ExpandOption) (string, error) {
	var mo mcp.MentionOptions
	for _, o := range opts {
		o(&mo)
	}
	var managers []*mcp.Manager
	for _, m := range h.Managers() {
		if m != nil {
			managers = append(managers, m)
		}
	}
	p, ok, err := mcp.ParseSlashPrompt(text)
	switch {
	case err != nil:
		return "", err
	case ok:
		for _, m := range managers {
			if slices.Contains(m.Servers(), p.Server) {
				if text, err = m.PromptText(ctx, p); err != nil {
					return "", err
				}
				ok = false
				break
			}
		}
		if ok {
			return "", fmt.Errorf("/%s:%s: no MCP server %q is configured", p.Server, p.Prompt, p.Server)
		}
	}
	for _, m := range managers {
		if text, err = m.ExpandMentions(ctx, text, mo); err != nil {
			return "", err
		}
	}
	return text, nil
}

// LargeMentions reads the resources text mentions and lists those over
// the mention limit, for the user to confirm before Expand attaches them
// with AllowLargeMentions.
func (h *Hub) LargeMentions(ctx context.Context, text string, opts ...ExpandOption) ([]LargeMention, error) {
	var large []LargeMention
	var limit int
	collect := func(o *mcp.MentionOptions) {
		limit = o.Limit
		if limit == 0 {
			limit = mcp.DefaultMentionLimit
		}
		o.Allow = func(server, uri string, size int) bool {
			large = append(large, LargeMention{Server: server, URI: uri, Size: size, Limit: limit})
			return true
		}
	}
	if _, err := h.Expand(ctx, text, append(slices.Clone(opts), collect)...); err != nil {
		return nil, err
	}
	return large, nil
}
