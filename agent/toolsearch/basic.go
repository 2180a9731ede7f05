package toolsearch

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Basic is category browsing over the generated folder.
type Basic struct {
	// Dir is the generated folder.
	Dir string
	// DisplayDir is how paths are shown to the model (relative to the
	// workspace), e.g. ".freeact/generated".
	DisplayDir string
}

// Category is a folder of tools.
type Category struct {
	Source string `json:"source"`
	Name   string `json:"name"`
	Tools  int    `json:"tools"`
}

// Categories lists the categories of both sources with their tool counts.
func (b Basic) Categories() ([]Category, error) {
	entries, err := Scan(b.Dir)
	if err != nil {
		return nil, err
	}
	var out []Category
	for _, e := range entries {
		if n := len(out); n > 0 && out[n-1].Source == e.Source && out[n-1].Name == e.Category {
			out[n-1].Tools++
			continue
		}
		out = append(out, Category{Source: e.Source, Name: e.Category, Tools: 1})
	}
	return out, nil
}

// Listed is a tool as the listing tools show it.
type Listed struct {
	Entry
	Path        string `json:"path"`
	Description string `json:"description"`
}

// Tools lists the tools of the named categories ("github", or
// "mcptools/github" to pick a source). Unknown names are an error that lists
// the known categories.
func (b Basic) Tools(categories []string) ([]Listed, error) {
	entries, err := Scan(b.Dir)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, e := range entries {
		known[e.Category] = true
		known[e.Source+"/"+e.Category] = true
	}
	var unknown []string
	for _, c := range categories {
		if !known[strings.Trim(c, "/ ")] {
			unknown = append(unknown, c)
		}
	}
	if len(unknown) > 0 {
		cats, _ := b.Categories()
		names := make([]string, len(cats))
		for i, c := range cats {
			names[i] = c.Source + "/" + c.Name
		}
		return nil, fmt.Errorf("unknown categories %s: known categories are %s", strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	var out []Listed
	for _, e := range entries {
		if slices.ContainsFunc(categories, func(c string) bool {
			c = strings.Trim(c, "/ ")
			return c == e.Category || c == e.Source+"/"+e.Category
		}) {
			out = append(out, b.listed(e))
		}
	}
	return out, nil
}

func (b Basic) listed(e Entry) Listed {
	return Listed{Entry: e, Path: path.Join(b.DisplayDir, e.File), Description: e.Summary()}
}

// ParseCategories reads the categories argument: a string (one name, or
// several separated by commas) or a list of strings.
func ParseCategories(raw json.RawMessage) ([]string, error) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		var out []string
		for c := range strings.SplitSeq(one, ",") {
			if c = strings.TrimSpace(c); c != "" {
				out = append(out, c)
			}
		}
		return out, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf(`categories must be a string or a list of strings, e.g. ["github"]`)
	}
	return many, nil
}
