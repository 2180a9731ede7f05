package acp

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

func TestPromptBlocksBecomeFreeactsPrompt(t *testing.T) {
	mime := "text/x-go"
	tests := []struct {
		name   string
		blocks []sdk.ContentBlock
		text   string
		images int
		err    string
	}{
		{"text", []sdk.ContentBlock{sdk.TextBlock("hi"), sdk.TextBlock("there")}, "hi\nthere", 0, ""},
		{"image", []sdk.ContentBlock{sdk.TextBlock("look"), sdk.ImageBlock("iVBORw0KGgo=", "image/png")}, "look", 1, ""},
		{"file link is a path mention", []sdk.ContentBlock{sdk.TextBlock("read"), sdk.ResourceLinkBlock("a", "file:///w/a.go")}, "read\n@/w/a.go", 0, ""},
		{"other link stays a URI", []sdk.ContentBlock{sdk.ResourceLinkBlock("r", "mcp://x/y")}, "<mcp://x/y>", 0, ""},
		{"embedded text is quoted", []sdk.ContentBlock{sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///w/a.go", Text: "package a", MimeType: &mime}})}, "@/w/a.go:\n```\npackage a\n```", 0, ""},
		{"image not base64", []sdk.ContentBlock{sdk.ImageBlock("%%%", "image/png")}, "", 0, "not base64"},
		{"image of another type", []sdk.ContentBlock{sdk.ImageBlock("aGk=", "text/plain")}, "", 0, "not an image type"},
		{"audio refused", []sdk.ContentBlock{sdk.AudioBlock("aGk=", "audio/wav")}, "", 0, "audio is not taken"},
		{"empty", []sdk.ContentBlock{sdk.TextBlock("  ")}, "", 0, "the prompt is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := toPrompt(tt.blocks)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Text != tt.text || len(p.Images) != tt.images {
				t.Errorf("prompt %q with %d images, want %q with %d", p.Text, len(p.Images), tt.text, tt.images)
			}
		})
	}
}

func TestMCPNameSplitsServerAndTool(t *testing.T) {
	servers := []string{"git", "git_hub"}
	for name, want := range map[string]string{
		"git_log":         "git: log",
		"git_hub_issues":  "git_hub: issues",
		"ipybox_reset":    "",
		"subagent_task":   "",
		"github_anything": "",
	} {
		server, tool, ok := mcpName(name, servers)
		got := ""
		if ok {
			got = server + ": " + tool
		}
		if got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

func TestLinesThatAreNoMessageGetErrors(t *testing.T) {
	for line, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"method":"x"}`: "",
		`{"jsonrpc":"2.0","method":"x"}`:        "",
		`{"jsonrpc":"2.0","id":1,"result":{}}`:  "",
		`nope`:                                  `"code":-32700`,
		`"a string"`:                            `"code":-32600`,
		`{}`:                                    `"code":-32600`,
	} {
		got := string(check([]byte(line)))
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) || want != "" && !strings.Contains(got, `"id":null`) {
			t.Errorf("%s: %q, want %q", line, got, want)
		}
	}
}
