package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// DefaultMentionLimit is the size of a mentioned resource above which
// it is attached only when MentionOptions.Allow says so.
const DefaultMentionLimit = 256 << 10

// MentionOptions bounds what ExpandMentions attaches.
type MentionOptions struct {
	// Limit is the size in bytes above which a resource is attached only
	// when Allow says so; 0 means DefaultMentionLimit, below 0 no limit.
	Limit int
	// Allow is asked about each resource over Limit; nil refuses it, and
	// ExpandMentions returns a *LargeMentionError.
	Allow func(server, uri string, size int) bool
}

// LargeMentionError is a mentioned resource over the limit that was not
// allowed: nothing was attached and nothing sent.
type LargeMentionError struct {
	Server, URI string
	Size, Limit int
}

func (e *LargeMentionError) Error() string {
	return fmt.Sprintf("@%s:%s is %s, more than the %d KiB a mention attaches without asking; it was not sent. Attach it anyway when asked, or mention a smaller resource",
		e.Server, e.URI, SizeText(e.Size), e.Limit>>10)
}

// SizeText writes a size in bytes for people: 812 bytes, 14 KiB, 5.0 MiB.
func SizeText(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// ExpandMentions attaches the resources that text mentions as
// @server:uri (server a configured name; anything else is left as it is)
// after the text, each between markers with a random boundary, so that a
// resource cannot end its own block early. A resource larger than
// opts.Limit is attached only when opts.Allow says so.
func (m *Manager) ExpandMentions(ctx context.Context, text string, opts MentionOptions) (string, error) {
	limit := opts.Limit
	if limit == 0 {
		limit = DefaultMentionLimit
	}
	var blocks []string
	seen := map[string]bool{}
	for _, word := range strings.FieldsFunc(text, unicode.IsSpace) {
		server, uri, ok := m.mention(word)
		if !ok || seen[word] {
			continue
		}
		seen[word] = true
		content, err := m.ReadResource(ctx, server, uri)
		if err != nil {
			return "", err
		}
		if limit > 0 && len(content) > limit && (opts.Allow == nil || !opts.Allow(server, uri, len(content))) {
			return "", &LargeMentionError{Server: server, URI: uri, Size: len(content), Limit: limit}
		}
		b := boundary()
		blocks = append(blocks, fmt.Sprintf("<resource server=%q uri=%q boundary=%q>\n%s\n</resource boundary=%q>", server, uri, b, content, b))
	}
	if len(blocks) == 0 {
		return text, nil
	}
	return text + "\n\n" + strings.Join(blocks, "\n\n"), nil
}

// mention splits @server:uri.
func (m *Manager) mention(word string) (server, uri string, ok bool) {
	rest, ok := strings.CutPrefix(word, "@")
	if !ok {
		return "", "", false
	}
	server, uri, ok = strings.Cut(rest, ":")
	if !ok || uri == "" || !slices.Contains(m.Servers(), server) {
		return "", "", false
	}
	return server, strings.TrimRight(uri, ".,;)"), true
}

func boundary() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// SlashPrompt is a prompt invocation /server:prompt key=value ...
type SlashPrompt struct {
	Server, Prompt string
	Args           map[string]string
}

// ParseSlashPrompt reads /server:prompt followed by key=value arguments
// (values may be double-quoted). ok is false for text that is not one.
func ParseSlashPrompt(text string) (p SlashPrompt, ok bool, err error) {
	text = strings.TrimSpace(text)
	head, rest, _ := strings.Cut(text, " ")
	name, found := strings.CutPrefix(head, "/")
	if !found {
		return p, false, nil
	}
	server, prompt, found := strings.Cut(name, ":")
	if !found || server == "" || prompt == "" {
		return p, false, nil
	}
	p = SlashPrompt{Server: server, Prompt: prompt, Args: map[string]string{}}
	rest = strings.TrimSpace(rest)
	for rest != "" {
		key, after, found := strings.Cut(rest, "=")
		if !found || key == "" || strings.ContainsAny(key, " \t") {
			return p, true, fmt.Errorf("prompt arguments are key=value (or key=\"a value\"), not %q", rest)
		}
		var val string
		if strings.HasPrefix(after, `"`) {
			end := strings.Index(after[1:], `"`)
			if end < 0 {
				return p, true, fmt.Errorf("the value of %s has no closing quote", key)
			}
			val, rest = after[1:1+end], after[2+end:]
		} else {
			val, rest, _ = strings.Cut(after, " ")
		}
		p.Args[key] = val
		rest = strings.TrimSpace(rest)
	}
	return p, true, nil
}

// PromptText gets a prompt and renders its messages as one request: the
// user messages as they are, others labelled with their role.
func (m *Manager) PromptText(ctx context.Context, p SlashPrompt) (string, error) {
	msgs, err := m.GetPrompt(ctx, p.Server, p.Prompt, p.Args)
	if err != nil {
		return "", err
	}
	parts := make([]string, 0, len(msgs))
	for _, msg := range msgs {
		if msg.Role == "user" {
			parts = append(parts, msg.Text)
		} else {
			parts = append(parts, msg.Role+": "+msg.Text)
		}
	}
	return strings.Join(parts, "\n\n"), nil
}
