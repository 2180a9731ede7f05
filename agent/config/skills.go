package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Skill is an agent skill: a folder with a SKILL.md whose YAML front matter
// gives its name and description.
type Skill struct {
	Name        string
	Description string
	// File is the absolute path of SKILL.md.
	File string
}

// Warning reports something in the workspace that was skipped, such as a
// broken skill. Warnings never stop loading.
type Warning struct {
	Path   string
	Reason string
}

func (w Warning) String() string { return w.Path + ": " + w.Reason }

// SkillDirs are the folders skills are loaded from, in order, relative to
// the workspace.
var SkillDirs = []string{filepath.Join(".freeact", "skills"), filepath.Join(".agents", "skills")}

// skillName is what can follow "/" in a prompt.
var skillName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// LoadSkills reads <dir>/*/SKILL.md for each of SkillDirs in order. A skill
// that cannot be read, has no front matter, lacks name or description, or
// repeats an earlier skill's name is skipped with a warning.
func LoadSkills(workspace string) ([]Skill, []Warning) {
	var skills []Skill
	var warnings []Warning
	seen := map[string]string{}
	for _, rel := range SkillDirs {
		root := filepath.Join(workspace, rel)
		entries, err := os.ReadDir(root)
		if err != nil {
			if !os.IsNotExist(err) {
				warnings = append(warnings, Warning{root, "cannot read skills folder: " + err.Error()})
			}
			continue
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			file := filepath.Join(root, e.Name(), "SKILL.md")
			if _, err := os.Stat(file); os.IsNotExist(err) {
				continue // not a skill folder
			}
			s, err := parseSkillFile(file)
			if err != nil {
				warnings = append(warnings, Warning{file, "skill skipped: " + err.Error()})
				continue
			}
			if first, dup := seen[s.Name]; dup {
				warnings = append(warnings, Warning{file, fmt.Sprintf("skill skipped: name %q is already used by %s", s.Name, first)})
				continue
			}
			seen[s.Name] = file
			skills = append(skills, s)
		}
	}
	return skills, warnings
}

func parseSkillFile(file string) (Skill, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return Skill{}, err
	}
	front, err := frontMatter(data)
	if err != nil {
		return Skill{}, err
	}
	var meta struct {
		Name        any `yaml:"name"`
		Description any `yaml:"description"`
	}
	if err := yaml.Unmarshal(front, &meta); err != nil {
		return Skill{}, fmt.Errorf("front matter is not valid YAML: %w", err)
	}
	name, ok := meta.Name.(string)
	if !ok || strings.TrimSpace(name) == "" {
		return Skill{}, fmt.Errorf(`front matter needs "name" (a string)`)
	}
	desc, ok := meta.Description.(string)
	if !ok || strings.TrimSpace(desc) == "" {
		return Skill{}, fmt.Errorf(`front matter needs "description" (a string)`)
	}
	name = strings.TrimSpace(name)
	if !skillName.MatchString(name) {
		return Skill{}, fmt.Errorf("name %q must be one word of letters, digits, '.', '_' or '-'", name)
	}
	return Skill{Name: name, Description: strings.TrimSpace(desc), File: file}, nil
}

// frontMatter returns the YAML between a leading "---" line and the next
// "---" line.
func frontMatter(data []byte) ([]byte, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(data, []byte("---\n")) {
		return nil, fmt.Errorf("no YAML front matter: the file must start with a --- line")
	}
	rest := data[4:]
	for off := 0; off <= len(rest); {
		i := bytes.IndexByte(rest[off:], '\n')
		end := len(rest)
		if i >= 0 {
			end = off + i
		}
		if string(bytes.TrimRight(rest[off:end], " \t")) == "---" {
			return rest[:off], nil
		}
		if i < 0 {
			break
		}
		off = end + 1
	}
	return nil, fmt.Errorf("front matter is not closed by a --- line")
}

// ExpandSkillCommand turns a prompt "/name args" into
// `<skill name="name">args</skill>` when name is one of skills; any other
// prompt is returned unchanged.
func ExpandSkillCommand(prompt string, skills []Skill) string {
	trimmed := strings.TrimLeft(prompt, " \t\r\n")
	if !strings.HasPrefix(trimmed, "/") {
		return prompt
	}
	name, args, _ := strings.Cut(trimmed[1:], " ")
	if i := strings.IndexAny(name, "\t\r\n"); i >= 0 {
		name, args = name[:i], name[i:]+" "+args
	}
	for _, s := range skills {
		if s.Name == name {
			return fmt.Sprintf(`<skill name="%s">%s</skill>`, name, strings.TrimSpace(args))
		}
	}
	return prompt
}
