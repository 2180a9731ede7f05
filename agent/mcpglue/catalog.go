// Package mcpglue owns the parts of the agent's MCP use that need no agent:
// the catalog of resources and prompts and argument completion
// (catalog.go), the state of each server (status.go), the throttled
// progress of a call (progress.go), the generation of code-mode
// modules (gen.go) and the tool-search tools over them
// (toolsearch.go). The agent hands it its managers.
package mcpglue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/freeact/desktop/agent/mcp"
	gomcp "github.com/mark3labs/mcp-go/mcp"
)

// MCPCatalog is what the prompt box offers of the MCP servers:
// resources and resource templates to mention as @server:uri, and
// prompts to run as /server:prompt.
type MCPCatalog struct {
	Resources []MCPResource `json:"resources"`
	Prompts   []MCPPrompt   `json:"prompts"`
	// Errors say which server's lists could not be read, and why.
	Errors []string `json:"errors"`
}

// MCPResource is a resource, or a resource template (Arguments set: the
// URI is an RFC 6570 template whose variables they are).
type MCPResource struct {
	Server      string        `json:"server"`
	URI         string        `json:"uri"`
	Name        string        `json:"name"`
	Description string        `json:"description"`
	MIMEType    string        `json:"mime_type"`
	Arguments   []MCPArgument `json:"arguments"`
}

// MCPPrompt is a prompt of a server, with its arguments.
type MCPPrompt struct {
	Server      string        `json:"server"`
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Arguments   []MCPArgument `json:"arguments"`
}

// MCPArgument is an argument of a prompt or a variable of a template.
type MCPArgument struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
}

// ManagerFor returns the manager, of managers (nil ones skipped), that
// runs server.
func ManagerFor(server string, managers ...*mcp.Manager) (*mcp.Manager, error) {
	for _, m := range managers {
		if m != nil && slices.Contains(m.Servers(), server) {
			return m, nil
		}
	}
	return nil, fmt.Errorf("no MCP server %q is configured in mcp_servers or ptc_servers", server)
}

// Catalog lists the resources, resource templates and prompts of every
// MCP server. A server that offers none of a kind is left out quietly; one
// that fails is named in Errors and the others are listed all the same.
func Catalog(ctx context.Context, managers ...*mcp.Manager) MCPCatalog {
	cat := MCPCatalog{Resources: []MCPResource{}, Prompts: []MCPPrompt{}, Errors: []string{}}
	fail := func(err error) {
		if errors.Is(err, gomcp.ErrMethodNotFound) || strings.Contains(err.Error(), "not supported") {
			return // the server has none of that kind
		}
		cat.Errors = append(cat.Errors, err.Error())
	}
	for _, m := range managers {
		if m == nil {
			continue
		}
		for _, server := range m.Servers() {
			if rs, err := m.Resources(ctx, server); err != nil {
				fail(err)
			} else {
				for _, r := range rs {
					cat.Resources = append(cat.Resources, MCPResource{Server: server, URI: r.URI, Name: firstOf(r.Title, r.Name), Description: r.Description, MIMEType: r.MIMEType})
				}
			}
			if ts, err := m.ResourceTemplates(ctx, server); err != nil {
				fail(err)
			} else {
				for _, t := range ts {
					r := MCPResource{Server: server, URI: t.URITemplate, Name: firstOf(t.Title, t.Name), Description: t.Description, MIMEType: t.MIMEType, Arguments: []MCPArgument{}}
					for _, v := range t.Variables {
						r.Arguments = append(r.Arguments, MCPArgument{Name: v, Required: true})
					}
					cat.Resources = append(cat.Resources, r)
				}
			}
			if ps, err := m.Prompts(ctx, server); err != nil {
				fail(err)
			} else {
				for _, p := range ps {
					mp := MCPPrompt{Server: server, Name: p.Name, Description: firstOf(p.Description, p.Title), Arguments: []MCPArgument{}}
					for _, arg := range p.Arguments {
						mp.Arguments = append(mp.Arguments, MCPArgument{Name: arg.Name, Description: firstOf(arg.Description, arg.Title), Required: arg.Required})
					}
					cat.Prompts = append(cat.Prompts, mp)
				}
			}
		}
	}
	return cat
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// Complete asks m's server for values of an argument that begin like
// value: kind "prompt" (name a prompt) or "resource" (name a resource
// template). resolved holds the arguments already filled in, which the
// server may narrow the values by.
func Complete(ctx context.Context, m *mcp.Manager, kind, server, name, arg, value string, resolved map[string]string) ([]string, error) {
	switch kind {
	case "prompt":
		return m.CompletePromptArgument(ctx, server, name, arg, value, resolved)
	case "resource":
		return m.CompleteResourceArgument(ctx, server, name, arg, value, resolved)
	}
	return nil, fmt.Errorf("complete: kind %q is neither prompt nor resource", kind)
}
