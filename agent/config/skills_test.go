package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func skillMD(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n\n# Body\n"
}

func TestLoadSkills(t *testing.T) {
	ws := t.TempDir()
	fs := filepath.Join(ws, ".freeact", "skills")
	ag := filepath.Join(ws, ".agents", "skills")
	write(t, filepath.Join(fs, "b-skill", "SKILL.md"), skillMD("b-skill", "Second by name."))
	write(t, filepath.Join(fs, "a-skill", "SKILL.md"), "\ufeff---\r\nname: a-skill\r\ndescription: >\r\n  Folded\r\n  text.\r\n---\r\nbody")
	write(t, filepath.Join(ag, "review", "SKILL.md"), skillMD("review", "Review code."))
	write(t, filepath.Join(ag, "dup", "SKILL.md"), skillMD("b-skill", "Same name as a .freeact skill."))
	write(t, filepath.Join(fs, "not-a-skill", "README.md"), "no SKILL.md here")
	write(t, filepath.Join(fs, "loose-file.md"), skillMD("loose", "Not in a folder."))
	broken := map[string]string{
		"no-front":    "# just markdown\n",
		"unclosed":    "---\nname: x\ndescription: y\n",
		"no-name":     "---\ndescription: y\n---\n",
		"no-desc":     "---\nname: no-desc\n---\n",
		"empty-desc":  "---\nname: e\ndescription: \"  \"\n---\n",
		"name-list":   "---\nname: [a, b]\ndescription: y\n---\n",
		"bad-yaml":    "---\nname: x\n  description: : y\n---\n",
		"spaced-name": "---\nname: two words\ndescription: y\n---\n",
	}
	for dir, content := range broken {
		write(t, filepath.Join(fs, dir, "SKILL.md"), content)
	}
	skills, warnings := LoadSkills(ws)
	var got []string
	for _, s := range skills {
		got = append(got, s.Name+"="+s.Description)
	}
	want := []string{"a-skill=Folded text.", "b-skill=Second by name.", "review=Review code."}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("skills %q, want %q", got, want)
	}
	if skills[2].File != filepath.Join(ag, "review", "SKILL.md") {
		t.Fatalf("File = %s", skills[2].File)
	}
	reasons := map[string]string{
		"no-front": "no YAML front matter", "unclosed": "not closed", "no-name": `needs "name"`,
		"no-desc": `needs "description"`, "empty-desc": `needs "description"`, "name-list": `needs "name"`,
		"bad-yaml": "not valid YAML", "spaced-name": "one word",
	}
	if len(warnings) != len(reasons)+1 {
		t.Fatalf("warnings: %v", warnings)
	}
	for _, w := range warnings {
		dir := filepath.Base(filepath.Dir(w.Path))
		if dir == "dup" {
			if !strings.Contains(w.Reason, `"b-skill" is already used`) {
				t.Errorf("duplicate warning: %v", w)
			}
			continue
		}
		if !strings.Contains(w.Reason, reasons[dir]) || !strings.HasSuffix(w.Path, "SKILL.md") {
			t.Errorf("warning %v, want the path and %q", w, reasons[dir])
		}
	}
}

func TestExpandSkillCommand(t *testing.T) {
	skills := []Skill{{Name: "task-planning"}, {Name: "review"}}
	tests := []struct{ in, want string }{
		{"/review the auth module", `<skill name="review">the auth module</skill>`},
		{"  /task-planning   build a CLI  ", `<skill name="task-planning">build a CLI</skill>`},
		{"/review", `<skill name="review"></skill>`},
		{"/review\nline one\nline two", `<skill name="review">line one` + "\n" + `line two</skill>`},
		{"/unknown do it", "/unknown do it"},
		{"/reviewer x", "/reviewer x"},
		{"please /review x", "please /review x"},
		{"/ review", "/ review"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := ExpandSkillCommand(tt.in, skills); got != tt.want {
			t.Errorf("ExpandSkillCommand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
