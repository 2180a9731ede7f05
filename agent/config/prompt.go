package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"text/template"
)

// Place says where code runs, for the system prompt.
type Place struct {
	// Server is the remote Jupyter server code runs on (its address, no
	// token); "" for the user's machine.
	Server string
	// WorkingDir is the workspace there; "" for the local workspace.
	WorkingDir string
}

// promptData fills the system prompt template.
type promptData struct {
	Server              string
	WorkingDir          string
	GeneratedDir        string // relative to the working directory
	Subagents           bool   // subagent_task is offered
	Skills              []promptSkill
	ProjectInstructions string
}

type promptSkill struct {
	Name, Description, Path string // Path relative to the working directory
}

// SystemPrompt renders the system prompt for the workspace, with the tool
// discovery of tool_search ("basic", "hybrid" or "off").
func (c *Config) SystemPrompt() (string, error) { return c.SystemPromptAt(Place{}) }

// SystemPromptAt renders the system prompt for code that runs at p.
func (c *Config) SystemPromptAt(p Place) (string, error) {
	variant := c.Options.ToolSearch
	if variant != "hybrid" && variant != "off" {
		variant = "basic"
	}
	data := promptData{
		Server:              p.Server,
		WorkingDir:          c.Dir,
		GeneratedDir:        filepath.ToSlash(filepath.Join(FreeactDir, generated)),
		Subagents:           c.Options.EnableSubagents,
		ProjectInstructions: c.ProjectInstructions,
	}
	if p.WorkingDir != "" {
		data.WorkingDir = p.WorkingDir
	}
	for _, s := range c.Skills {
		rel, err := filepath.Rel(c.Dir, s.File)
		if err != nil {
			rel = s.File
		}
		data.Skills = append(data.Skills, promptSkill{s.Name, s.Description, filepath.ToSlash(rel)})
	}
	return renderPrompt(variant, data)
}

func renderPrompt(variant string, data promptData) (string, error) {
	t, err := template.ParseFS(templates, "templates/prompts/system.md", "templates/prompts/discovery-"+variant+".md")
	if err != nil {
		return "", fmt.Errorf("system prompt template: %w", err)
	}
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, "system.md", data); err != nil {
		return "", fmt.Errorf("system prompt: %w", err)
	}
	return strings.TrimSpace(b.String()) + "\n", nil
}
