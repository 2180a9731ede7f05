package permission

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/freeact/desktop/agent/shell"
)

// This file holds the checks that make a rule allowing a call not enough:
// files that change what the agent may do without asking (protected
// files), and shell commands whose arguments name files the file rules ask
// for.
//
// A shell command's files are found by shell.FileAccesses and taken
// relative to the workspace, where every cell's commands start. They meet
// the file rules like this:
//
//   - a file it may read is checked against the FileRead ask rules, a file
//     it writes against the FileWrite and FileEdit ask rules, whatever the
//     rule's tool name; a match asks, even when a ShellAction rule allows
//     the command ("cat *" does not allow "cat .env");
//   - a folder it reads recursively (grep -r, rg, find, cp -r) is walked,
//     following links, and asked for when a file below it matches such an
//     ask rule, or when it holds more than maxWalk entries (too many to
//     check; a walk of the whole workspace with a virtual environment
//     in it often is);
//   - a word only known when the command runs ($F, $(...), ~, xargs input)
//     is asked for when there is any FileRead ask rule, as it could name
//     such a file;
//   - a file with more than one hard link is the file it shares its inode
//     with: a link to .env is .env;
//   - writes (redirections, tee, --output, -o, -i, -exec, ...) are covered
//     by an allowing ShellAction rule only when the rule names what makes
//     the write: "sort -o *" covers "sort -o out in", "sort *" does not.
//
// The allow rules for files are not consulted for shell commands: the
// ShellAction rule is the allowance, the file rules' ask tier its limit.
// What a program does beyond its arguments (a script run by python, make
// or an awk program) is not visible here.

// maxWalk bounds the entries visited to check one folder (or to find the
// files the rules name for a hard-link comparison): Manager.walkLimit.
const maxWalk = 50000

// protectedWarning ends the reason of every call that touches a protected
// file.
const protectedWarning = "this changes what the agent may do without asking"

// Verdict is the outcome of Evaluate: the decision, and why a call is
// asked when that is not evident from the call itself.
type Verdict struct {
	Decision Decision
	// Reason says, for the user, why the call is asked: a rule asks for
	// it, it touches a protected file, or its arguments name a file an ask
	// rule covers although a rule allows the command. Empty for Allow and
	// for a plain NoMatch.
	Reason string
	// Protected: the call changes a protected file (permissions.json,
	// agent.json, the sandbox settings). It is asked every time; no rule
	// can allow it, so only a one-time yes or a no may answer it.
	Protected bool
	// Rule is the rule that allowed the call (Decision Allow), and Scope
	// where it lives: a saved rule or a grant of the conversation.
	Rule  Rule
	Scope Scope
}

// Protect adds files whose change alters what the agent may do without
// asking (agent.json, the sandbox settings); the permissions files
// (permissions.json, freeact 0.11's permissions.toml) are always protected. Writes and edits of them are asked every time with a
// warning, and no rule can allow them.
func (m *Manager) Protect(files ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, f := range files {
		if f == "" {
			continue
		}
		if !filepath.IsAbs(f) {
			f = filepath.Join(m.workspace, f)
		}
		if f = filepath.Clean(f); !slices.Contains(m.protected, f) {
			m.protected = append(m.protected, f)
		}
	}
}

// ProtectedFiles returns the protected files, absolute.
func (m *Manager) ProtectedFiles() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []string
	for _, f := range m.protectedFiles() {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

func (m *Manager) protectedFiles() []string {
	return append([]string{m.file, m.tomlFile}, m.protected...)
}

// protectedFile returns the protected file that p is, or "" when it is
// none. With recursive, p is also protected when a protected file lies
// below it (rm -r .freeact); with byName, a relative p is also protected
// when its name is a protected file's name, as the command may run in
// another folder.
func (m *Manager) protectedFile(p string, recursive, byName bool) string {
	if p == "" {
		return ""
	}
	norm := NormalizePath(p, m.workspace)
	real := resolve(m.absolute(p))
	info, statErr := os.Stat(real)
	for _, f := range m.protectedFiles() {
		pf := NormalizePath(f, m.workspace)
		switch {
		case norm == pf:
			return pf
		case recursive && within(real, resolve(f)):
			return pf
		case byName && !filepath.IsAbs(p) && path.Base(filepath.ToSlash(p)) == path.Base(pf):
			return pf
		}
		if statErr == nil && info.Mode().IsRegular() && links(info) > 1 {
			if fi, err := os.Stat(f); err == nil && os.SameFile(info, fi) {
				return pf
			}
		}
	}
	return ""
}

// within reports whether file lies below dir (both absolute and clean).
func within(dir, file string) bool {
	return dir == string(filepath.Separator) || strings.HasPrefix(file, dir+string(filepath.Separator))
}

// absolute returns p as an absolute, clean path: relative ones are in the
// workspace.
func (m *Manager) absolute(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(m.workspace, p)
}

// protectedCall returns why c changes a protected file, or "".
func (m *Manager) protectedCall(c Call, acc []shell.Access) string {
	switch {
	case c.Type == TypeFileWrite || c.Type == TypeFileEdit:
		if f := m.protectedFile(c.Path, false, false); f != "" {
			return fmt.Sprintf("it changes %s: %s", f, protectedWarning)
		}
	case c.Type == TypeShellAction:
		for _, a := range acc {
			if !a.Write {
				continue
			}
			if a.Unnamed {
				return fmt.Sprintf("%s writes files named only inside what it reads (an archive, a patch, commits), which could be %s: %s",
					a.By, m.protectedList(), protectedWarning)
			}
			if a.Dynamic {
				return fmt.Sprintf("it writes to %s, a file only known when it runs, which could be %s: %s",
					a.Path, m.protectedList(), protectedWarning)
			}
			if f := m.protectedFile(a.Path, a.Recursive, true); f != "" {
				how := "writes"
				if a.By != ">" && a.By != "" {
					how = "writes (" + a.By + ")"
				}
				if NormalizePath(a.Path, m.workspace) == f {
					return fmt.Sprintf("it %s %s: %s", how, f, protectedWarning)
				}
				return fmt.Sprintf("it %s %s, which may be %s: %s", how, a.Path, f, protectedWarning)
			}
		}
	}
	return ""
}

func (m *Manager) protectedList() string {
	var names []string
	for _, f := range m.protectedFiles() {
		names = append(names, NormalizePath(f, m.workspace))
	}
	return strings.Join(names, " or ")
}

// place makes the files of a shell command that runs in folder dir (the
// kernel's current folder; "" is the workspace) paths the rules can meet:
// a relative path is taken from dir, and every path is resolved the way
// the kernel walks it (resolveIn), so /proc/self/cwd/.env, /dev/fd/../cwd
// and link/../x are the files they reach. A path inside the workspace
// stays relative to it. One that cannot be known before the command runs
// (another process's folder, a path through an open descriptor) becomes
// Dynamic.
func (m *Manager) place(acc []shell.Access, dir string) []shell.Access {
	if dir == "" {
		dir = m.workspace
	}
	ws := resolve(m.workspace)
	out := make([]shell.Access, 0, len(acc))
	for _, a := range acc {
		if a.Dynamic || a.Unnamed || a.Path == "" {
			out = append(out, a)
			continue
		}
		abs := a.Path
		if !filepath.IsAbs(abs) {
			abs = dir + "/" + abs // not cleaned: ".." is taken after links
		}
		real, ok := resolveIn(abs, dir)
		switch rel, err := filepath.Rel(ws, real); {
		case !ok:
			a.Dynamic = true
		case err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)):
			a.Path = filepath.ToSlash(rel)
		default:
			a.Path = real
		}
		out = append(out, a)
	}
	return out
}

// writeMarkers returns what makes command write files: the words a rule
// must name to cover the command.
func writeMarkers(command string, acc []shell.Access) []string {
	var out []string
	if shell.WritesFiles(command) {
		out = append(out, ">")
	}
	for _, a := range acc {
		if a.Write && a.By != "" && !slices.Contains(out, a.By) {
			out = append(out, a.By)
		}
	}
	return out
}

// uncovered returns the first write marker that rule r does not name, or
// "": a redirection needs a ">" anywhere in the rule, anything else a word
// of the rule that starts with it.
func uncovered(r Rule, markers []string) string {
	words := strings.Fields(r.Command)
	for _, mk := range markers {
		if mk == ">" {
			if !strings.Contains(r.Command, ">") {
				return mk
			}
			continue
		}
		if !slices.ContainsFunc(words, func(w string) bool { return names(w, mk) }) {
			return mk
		}
	}
	return ""
}

// names reports whether a rule's word names marker mk: it starts with it
// ("--output=*" names "--output"), it is the program (a path to it
// included), or it is a cluster of one-letter options holding it ("-sSo"
// names "-o").
func names(w, mk string) bool {
	if strings.HasPrefix(w, mk) || path.Base(w) == mk {
		return true
	}
	return len(mk) == 2 && mk[0] == '-' && mk[1] != '-' && len(w) > 1 && w[0] == '-' && w[1] != '-' &&
		strings.Contains(w[1:], mk[1:])
}

// askReason returns why c, which an allow rule matched, must be asked
// anyway: a hard link to a file an ask rule names, or a shell command
// whose files meet an ask rule. It returns "" when nothing stands against
// the allow rule.
func (m *Manager) askReason(grants Rules, c Call, acc []shell.Access) string {
	if isFileType(c.Type) {
		if r, f := m.hardLinked(c.Path, m.askRules(grants, c.Type)); f != "" {
			return fmt.Sprintf("%s is a hard link to %s, which the rule %s asks for", c.Path, f, r)
		}
		return ""
	}
	if c.Type != TypeShellAction {
		return ""
	}
	reads := m.askRules(grants, TypeFileRead)
	writes := append(m.askRules(grants, TypeFileWrite), m.askRules(grants, TypeFileEdit)...)
	for _, a := range acc {
		rules := reads
		verb := "reads"
		if a.Write {
			rules, verb = writes, "writes"
		}
		if len(rules) == 0 {
			continue
		}
		switch {
		case a.Unnamed && !a.Write:
			return fmt.Sprintf("%s prints file content from git history, which may hold a file the rule %s asks for", a.By, rules[0])
		case a.Unnamed:
			continue // a protected-file question, answered already
		case a.Dynamic:
			if a.Write {
				continue // a protected-file question, answered already
			}
			return fmt.Sprintf("%s gets %s only when it runs, so it could read a file the rule %s asks for", a.By, a.Path, rules[0])
		case a.Path == "":
			continue
		case a.Recursive:
			if r, f, full := m.below(a.Path, rules); f != "" {
				return fmt.Sprintf("%s %s everything below %s, including %s, which the rule %s asks for", a.By, verb, a.Path, f, r)
			} else if !full {
				return fmt.Sprintf("%s %s everything below %s, more than %d entries: too many to check for files an ask rule names", a.By, verb, a.Path, m.walkLimit)
			}
		}
		for _, r := range rules {
			if PathMatch(r.Path, a.Path, m.workspace) {
				return fmt.Sprintf("it %s %s, which the rule %s asks for", verb, a.Path, r)
			}
		}
		if r, f := m.hardLinked(a.Path, rules); f != "" {
			return fmt.Sprintf("it %s %s, a hard link to %s, which the rule %s asks for", verb, a.Path, f, r)
		}
	}
	return ""
}

// askRules returns the ask rules of type t, the conversation's grants
// first.
func (m *Manager) askRules(grants Rules, t string) []Rule {
	var out []Rule
	for _, r := range slices.Concat(grants.Ask, m.always.Ask, m.imported.Ask) {
		if r.Type == t {
			out = append(out, r)
		}
	}
	return out
}

// hardLinked reports, for a file with more than one hard link, the rule
// and the file of the same inode that one of rules names. When the files
// the rules name cannot all be found within maxWalk entries, the first
// rule is returned with the file "(unknown: too many files to check)".
func (m *Manager) hardLinked(p string, rules []Rule) (Rule, string) {
	if len(rules) == 0 || p == "" {
		return Rule{}, ""
	}
	info, err := os.Stat(m.absolute(p))
	if err != nil || !info.Mode().IsRegular() || links(info) < 2 {
		return Rule{}, ""
	}
	found, full := m.named(rules)
	for _, n := range found {
		if os.SameFile(info, n.info) && NormalizePath(p, m.workspace) != n.path {
			return n.rule, n.path
		}
	}
	if !full {
		return rules[0], "(unknown: too many files to check)"
	}
	return Rule{}, ""
}

type namedFile struct {
	path string // as rules see it
	info fs.FileInfo
	rule Rule
}

// named finds the existing files that rules name: below the workspace for
// relative patterns, below the fixed leading folders of absolute ones.
// full is false when the search stopped at maxWalk entries.
func (m *Manager) named(rules []Rule) (found []namedFile, full bool) {
	roots := map[string]bool{}
	for _, r := range rules {
		if strings.HasPrefix(r.Path, "/") {
			base, _ := doublestar.SplitPattern(r.Path)
			roots[base] = true
		} else {
			roots[m.workspace] = true
		}
	}
	budget := m.walkLimit
	full = true
	for _, root := range slices.Sorted(maps.Keys(roots)) {
		ok := m.walk(root, &budget, func(norm string, info fs.FileInfo) bool {
			if !info.Mode().IsRegular() {
				return false
			}
			for _, r := range rules {
				if matchNorm(r.Path, norm) {
					found = append(found, namedFile{path: norm, info: info, rule: r})
					break
				}
			}
			return false
		})
		full = full && ok
	}
	return found, full
}

// below reports the first file below dir (dir itself included) that one
// of rules names, directly or as a hard link; full is false when the walk
// stopped at maxWalk entries before finding one.
func (m *Manager) below(dir string, rules []Rule) (rule Rule, file string, full bool) {
	budget := m.walkLimit
	var named []namedFile
	namedDone, namedFull := false, true
	full = m.walk(m.absolute(dir), &budget, func(norm string, info fs.FileInfo) bool {
		for _, r := range rules {
			if matchNorm(r.Path, norm) {
				rule, file = r, norm
				return true
			}
		}
		if info.Mode().IsRegular() && links(info) > 1 {
			if !namedDone {
				named, namedFull = m.named(rules)
				namedDone = true
			}
			for _, n := range named {
				if os.SameFile(info, n.info) {
					rule, file = n.rule, norm+" (a hard link to "+n.path+")"
					return true
				}
			}
			if !namedFull {
				rule, file = rules[0], norm+" (a hard link; too many files to check what to)"
				return true
			}
		}
		return false
	})
	return rule, file, full || file != ""
}

// walk visits root and everything below it, following symbolic links
// (each folder once), and calls visit with each entry's path as rules see
// it and its (followed) file info; visit returns true to stop. walk
// reports false when it ran out of budget.
func (m *Manager) walk(root string, budget *int, visit func(norm string, info fs.FileInfo) bool) bool {
	ws := resolve(m.workspace)
	normOf := func(real string) string {
		if rel, err := filepath.Rel(ws, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
		return filepath.ToSlash(real)
	}
	seen := map[[2]uint64]bool{}
	stopped := false
	var visitPath func(real string) bool // false: out of budget
	visitPath = func(real string) bool {
		if stopped {
			return true
		}
		if *budget--; *budget < 0 {
			return false
		}
		info, err := os.Stat(real)
		if err != nil {
			return true // gone, or a broken link: nothing to read
		}
		if visit(normOf(real), info) {
			stopped = true
			return true
		}
		if !info.IsDir() {
			return true
		}
		if id, ok := fileID(info); ok {
			if seen[id] {
				return true
			}
			seen[id] = true
		}
		entries, err := os.ReadDir(real)
		if err != nil {
			return true
		}
		for _, e := range entries {
			child := filepath.Join(real, e.Name())
			if e.Type()&fs.ModeSymlink != 0 {
				target, err := filepath.EvalSymlinks(child)
				if err != nil {
					continue
				}
				// The link's own name is what a rule may name (.env -> x).
				if li, err := os.Stat(target); err == nil && visit(normOf(child), li) {
					stopped = true
					return true
				}
				child = target
			}
			if !visitPath(child) {
				return false
			}
			if stopped {
				return true
			}
		}
		return true
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return true
	}
	return visitPath(real)
}

// matchNorm matches a normalised path (see NormalizePath) against pattern:
// a relative pattern only paths inside the workspace, an absolute one only
// paths outside it.
func matchNorm(pattern, norm string) bool {
	if pattern == "" || norm == "" || path.IsAbs(pattern) != path.IsAbs(norm) {
		return false
	}
	ok, err := doublestar.Match(pattern, norm)
	return err == nil && ok
}
