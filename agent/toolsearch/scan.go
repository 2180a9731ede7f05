package toolsearch

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/freeact/desktop/agent/config"
)

// Sources of tools under the generated folder.
const (
	MCPTools = config.MCPToolsFolder // <category>/<tool>.py, generated from ptc_servers
	GenTools = config.GenToolsFolder // <category>/<tool>/api.py, saved by the agent or the user
)

// Entry is one tool found under the generated folder.
type Entry struct {
	// ID is the tool's path without extension relative to the generated
	// folder: "mcptools/github/create_issue", "gentools/data/summarize".
	ID       string `json:"-"`
	Source   string `json:"source"`
	Category string `json:"category"`
	Name     string `json:"name"`
	// Module is the import path: "mcptools.github.create_issue",
	// "gentools.data.summarize.api".
	Module string `json:"module"`
	// File is the interface file relative to the generated folder.
	File string `json:"-"`
	// Description is the module's docstring.
	Description string `json:"-"`
	// Hash identifies the file's content, to notice changes.
	Hash string `json:"-"`
}

// Summary is the first line of the description.
func (e Entry) Summary() string {
	for l := range strings.SplitSeq(e.Description, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// Scan lists the tools under dir (the generated folder): the modules of
// mcptools/<category>/ and the api.py of gentools/<category>/<tool>/.
// Missing folders are empty; files whose names are not importable are left
// out. Entries are sorted by ID.
func Scan(dir string) ([]Entry, error) {
	var out []Entry
	for _, src := range []string{MCPTools, GenTools} {
		root := filepath.Join(dir, src)
		cats, err := os.ReadDir(root)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", root, err)
		}
		for _, c := range cats {
			if !c.IsDir() || !importable(c.Name()) {
				continue
			}
			items, err := os.ReadDir(filepath.Join(root, c.Name()))
			if err != nil {
				if os.IsNotExist(err) {
					continue // removed while scanning
				}
				return nil, fmt.Errorf("list %s: %w", filepath.Join(root, c.Name()), err)
			}
			for _, it := range items {
				var name, file string
				switch {
				case src == MCPTools && !it.IsDir() && strings.HasSuffix(it.Name(), ".py") && it.Name() != "__init__.py":
					name, file = strings.TrimSuffix(it.Name(), ".py"), path.Join(src, c.Name(), it.Name())
				case src == GenTools && it.IsDir():
					name, file = it.Name(), path.Join(src, c.Name(), it.Name(), "api.py")
				default:
					continue
				}
				if !importable(name) {
					continue
				}
				data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
				if err != nil {
					if errors.Is(err, fs.ErrNotExist) {
						continue
					}
					return nil, fmt.Errorf("read %s: %w", file, err)
				}
				sum := sha256.Sum256(data)
				module := src + "." + c.Name() + "." + name
				if src == GenTools {
					module += ".api"
				}
				out = append(out, Entry{
					ID: path.Join(src, c.Name(), name), Source: src, Category: c.Name(), Name: name,
					Module: module, File: file, Description: Docstring(string(data)), Hash: hex.EncodeToString(sum[:16]),
				})
			}
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// importable tells whether name can be a Python module name.
func importable(name string) bool {
	if name == "" || strings.HasPrefix(name, ".") || name == "__pycache__" || (name[0] >= '0' && name[0] <= '9') {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Docstring returns the docstring of a Python module: its first statement
// when that is a string literal. Without one, it is the docstring of the
// module's first function, so a gentool documented only on run() is found
// too.
func Docstring(src string) string {
	if d, ok := leadingString(src); ok {
		return d
	}
	for i := 0; i < len(src); {
		j := strings.Index(src[i:], "def ")
		if j < 0 {
			break
		}
		at := i + j
		if at == 0 || src[at-1] == '\n' {
			// A top-level function: its docstring follows the line with
			// the colon that ends the signature.
			if k := strings.Index(src[at:], ":\n"); k >= 0 {
				d, _ := leadingString(src[at+k+2:])
				return d
			}
			break
		}
		i = at + 4
	}
	return ""
}

// leadingString reads a string literal that starts src after blank lines
// and comments.
func leadingString(src string) (string, bool) {
	s := src
	for {
		s = strings.TrimLeft(s, " \t\r\n\f")
		if strings.HasPrefix(s, "#") {
			if i := strings.IndexByte(s, '\n'); i >= 0 {
				s = s[i+1:]
				continue
			}
			return "", false
		}
		break
	}
	raw := false
	for len(s) > 0 && strings.ContainsRune("rRuU", rune(s[0])) {
		raw = raw || s[0] == 'r' || s[0] == 'R'
		s = s[1:]
	}
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if !strings.HasPrefix(s, q) {
			continue
		}
		body := s[len(q):]
		end := -1
		for i := 0; i < len(body); i++ {
			if body[i] == '\\' {
				i++
				continue
			}
			if strings.HasPrefix(body[i:], q) {
				end = i
				break
			}
			if len(q) == 1 && body[i] == '\n' {
				return "", false
			}
		}
		if end < 0 {
			return "", false
		}
		text := body[:end]
		if !raw {
			text = unescape(text)
		}
		return clean(text), true
	}
	return "", false
}

// unescape decodes the escapes of a Python string literal; unknown ones
// stay as they are.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case '\n':
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if i+n < len(s) {
				if v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32); err == nil {
					b.WriteRune(rune(v))
					i += n
					continue
				}
			}
			b.WriteByte('\\')
			b.WriteByte(e)
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

// clean removes the common indentation of a docstring's continuation lines.
func clean(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	indent := -1
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i := 1; i < len(lines); i++ {
		if indent > 0 && len(lines[i]) >= indent {
			lines[i] = lines[i][indent:]
		} else {
			lines[i] = strings.TrimLeft(lines[i], " \t")
		}
	}
	return strings.Join(lines, "\n")
}
