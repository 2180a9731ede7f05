package config

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/internal/testenv"
)

// TestInitGolden checks every file Init scaffolds, and the folder layout.
func TestInitGolden(t *testing.T) {
	ws := t.TempDir()
	if err := Init(ws); err != nil {
		t.Fatal(err)
	}
	var tree []string
	root := filepath.Join(ws, FreeactDir)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			tree = append(tree, rel+"/")
			return nil
		}
		tree = append(tree, rel)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		testenv.Golden(t, filepath.Join("testdata", "golden", "init", rel), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	testenv.Golden(t, filepath.Join("testdata", "golden", "init.tree"), []byte(strings.Join(tree, "\n")+"\n"))
}

// TestSystemPromptGolden renders the prompt variants for a fixed workspace.
func TestSystemPromptGolden(t *testing.T) {
	ws := filepath.FromSlash("/home/user/project")
	c := &Config{
		Dir:        ws,
		FreeactDir: filepath.Join(ws, FreeactDir),
		Options:    Defaults(),
		Skills: []Skill{
			{Name: "task-planning", Description: "Plan multi-step work.", File: filepath.Join(ws, ".freeact", "skills", "task-planning", "SKILL.md")},
			{Name: "review", Description: "Review a change.", File: filepath.Join(ws, ".agents", "skills", "review", "SKILL.md")},
		},
		ProjectInstructions: "Run the tests with `make test`.",
	}
	for _, variant := range []string{"basic", "hybrid", "off"} {
		c.Options.ToolSearch = variant
		got, err := c.SystemPrompt()
		if err != nil {
			t.Fatal(err)
		}
		testenv.Golden(t, filepath.Join("testdata", "golden", "system-"+variant+".md"), []byte(got))
	}
	// Without skills and AGENTS.md the sections are left out, and without
	// subagents the rule on subagent_task.
	c.Skills, c.ProjectInstructions, c.Options.ToolSearch, c.Options.EnableSubagents = nil, "", "basic", false
	got, err := c.SystemPrompt()
	if err != nil {
		t.Fatal(err)
	}
	testenv.Golden(t, filepath.Join("testdata", "golden", "system-bare.md"), []byte(got))
	// Code on a remote server: the prompt says where it runs.
	got, err = c.SystemPromptAt(Place{Server: "https://hub.example.com/user/ada/", WorkingDir: "/home/ada/work"})
	if err != nil {
		t.Fatal(err)
	}
	testenv.Golden(t, filepath.Join("testdata", "golden", "system-remote.md"), []byte(got))
}
