package shell

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Result is the outcome of splitting one command line.
type Result struct {
	// Commands holds each simple command as its exact source text, in source
	// order and without duplicates. When Opaque is set it holds the whole
	// line (trimmed) as its only element.
	Commands []string
	// Opaque reports that the line could hide execution that cannot be
	// split safely: ask for the whole line and never auto-allow it.
	Opaque bool
	// Reason says why the line is opaque.
	Reason string
}

// maxDepth bounds how deeply nested scripts (bash -c inside eval inside ...)
// are followed before the line is treated as opaque.
const maxDepth = 8

// maxLen bounds the line length the parser is given; longer lines are opaque.
const maxLen = 1 << 20

// Split splits line into the simple commands that must be approved.
// A blank or comment-only line yields no commands.
func Split(line string) Result {
	s := &splitter{seen: map[string]bool{}}
	s.split(line, 0)
	whole := strings.TrimSpace(line)
	if s.opaque != "" {
		return Result{Commands: []string{whole}, Opaque: true, Reason: s.opaque}
	}
	return Result{Commands: s.cmds}
}

type splitter struct {
	cmds   []string
	seen   map[string]bool
	opaque string     // reason; set once, the first reason wins
	files  *collector // set by FileAccesses
}

func (s *splitter) fail(reason string) {
	if s.opaque == "" {
		s.opaque = reason
	}
}

func (s *splitter) add(cmd string) {
	cmd = strings.TrimSpace(cmd)
	if cmd == "" || s.seen[cmd] {
		return
	}
	s.seen[cmd] = true
	s.cmds = append(s.cmds, cmd)
}

// split parses src and collects its commands; depth counts nested scripts.
func (s *splitter) split(src string, depth int) {
	if depth > maxDepth {
		s.fail("shell scripts nested too deeply to check")
		return
	}
	if len(src) > maxLen {
		s.fail("command line too long to check")
		return
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		s.fail("cannot parse: " + err.Error())
		return
	}
	if len(file.Stmts) == 0 && !commentOnly(src) {
		s.fail("the parser found no command in non-blank input")
		return
	}
	before := len(s.cmds)
	w := &walker{s: s, src: src, depth: depth}
	syntax.Walk(file, w.visit)
	if len(s.cmds) == before && len(file.Stmts) > 0 {
		// Something parsed but no simple command was found (an arithmetic
		// command, a test clause...): ask for the text as a whole.
		s.add(src)
	}
}

// commentOnly reports whether src holds nothing but blanks, line
// continuations and comments.
func commentOnly(src string) bool {
	src = strings.ReplaceAll(src, "\\\n", "")
	for _, l := range strings.Split(src, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			return false
		}
	}
	return true
}

type walker struct {
	s     *splitter
	src   string
	depth int
}

func (w *walker) visit(n syntax.Node) bool {
	if w.s.opaque != "" {
		return false
	}
	st, ok := n.(*syntax.Stmt)
	if !ok {
		return true
	}
	if w.s.files != nil {
		for _, r := range st.Redirs {
			w.s.files.redirect(r, w.src)
		}
	}
	switch cmd := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(cmd.Args) == 0 {
			if len(st.Redirs) > 0 {
				w.s.add(w.stmtText(st, cmd))
			}
			return true
		}
		w.s.add(w.stmtText(st, cmd))
		w.call(st, cmd.Args)
	case *syntax.DeclClause:
		w.s.add(w.stmtText(st, cmd))
	case nil:
		if len(st.Redirs) > 0 {
			w.s.add(w.stmtText(st, nil))
		}
	}
	return true
}

// stmtText returns the source of a statement's command with its
// redirections, followed by the bodies of its here-documents.
func (w *walker) stmtText(st *syntax.Stmt, cmd syntax.Node) string {
	start, end := -1, -1
	span := func(p, e syntax.Pos) {
		if !p.IsValid() || !e.IsValid() {
			return
		}
		if ps := int(p.Offset()); start < 0 || ps < start {
			start = ps
		}
		if pe := int(e.Offset()); pe > end {
			end = pe
		}
	}
	if cmd != nil {
		span(cmd.Pos(), cmd.End())
	}
	for _, r := range st.Redirs {
		if r.Word != nil {
			span(r.Pos(), r.Word.End())
		}
	}
	if start < 0 || end > len(w.src) || start > end {
		return ""
	}
	var b strings.Builder
	b.WriteString(w.src[start:end])
	for _, r := range st.Redirs {
		if r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc {
			b.WriteString("\n")
			b.WriteString(w.hdocText(r))
		}
	}
	return b.String()
}

// hdocText returns a here-document's body and closing delimiter as written.
func (w *walker) hdocText(r *syntax.Redirect) string {
	delim := unquote(r.Word)
	if r.Hdoc == nil || !r.Hdoc.Pos().IsValid() || len(r.Hdoc.Parts) == 0 {
		return delim
	}
	from, to := int(r.Hdoc.Pos().Offset()), int(r.Hdoc.End().Offset())
	if from > to || to > len(w.src) {
		return delim
	}
	// The closing delimiter line follows the body.
	rest := w.src[to:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	return w.src[from:to] + rest
}

// call looks into a simple command for commands it runs in turn.
func (w *walker) call(st *syntax.Stmt, args []*syntax.Word) {
	name, ok := w.plainName(args[0])
	if !ok {
		w.s.fail("command name is not a plain word: " + w.wordText(args[0]))
		return
	}
	if w.s.files != nil {
		w.s.files.command(args, w.src)
	}
	base := path.Base(name)
	switch {
	case shells[base] != "":
		if shells[base] != "posix" {
			w.s.fail(base + " scripts are not split")
			return
		}
		w.shellCall(st, args)
	case base == "eval":
		w.eval(args[1:])
	case base == "source" || base == ".":
		if len(args) > 1 {
			if v, ok := staticValue(args[1]); !ok || readsStdin(v) {
				w.s.fail("sources a script only known at run time")
			}
		}
	case base == "trap":
		w.trap(args[1:])
	case base == "alias":
		w.alias(args[1:])
	case base == "find":
		w.findExec(args[1:])
	case base == "watch":
		w.watch(args[1:])
	case base == "command" && len(args) > 1 && isLookup(args[1]):
		// command -v / -V only looks the name up.
	default:
		if skip, known := wrappers[base]; known {
			w.wrapped(base, args[1:], skip)
		}
	}
}

// wrapped handles a command that runs the command given as its arguments.
func (w *walker) wrapped(name string, args []*syntax.Word, opts wrapperOpts) {
	i := 0
	positional := opts.positional
	for i < len(args) {
		v, static := staticValue(args[i])
		if !static {
			// A dynamic option or command word: we cannot tell what runs.
			w.s.fail(name + " runs a command that is only known at run time")
			return
		}
		switch {
		case v == "--":
			i++
			goto inner
		case name == "env" && (strings.HasPrefix(v, "-S") || strings.HasPrefix(v, "--split-string")):
			w.s.fail("env -S splits a string into a command")
			return
		case strings.HasPrefix(v, "-") && len(v) > 1:
			i++
			if opts.withValue[v] {
				i++
			}
		case name == "env" && strings.Contains(v, "="):
			i++
		case positional > 0:
			positional--
			i++
		default:
			goto inner
		}
	}
inner:
	if i >= len(args) {
		return // the wrapper alone (env, command -v x...) runs nothing else
	}
	w.s.add(w.wordsText(args[i:]))
	w.call(nil, args[i:])
}

// shellCall handles bash/sh/... invocations: a literal -c script is split, a
// script read from stdin is split when it is a literal here-document or
// here-string, and anything else that hides the script is opaque.
func (w *walker) shellCall(st *syntax.Stmt, args []*syntax.Word) {
	script := "" // the script file argument, if any
	for i := 1; i < len(args); i++ {
		v, static := staticValue(args[i])
		if !static {
			w.s.fail("shell invoked with arguments only known at run time")
			return
		}
		if v == "--" {
			if i+1 < len(args) {
				script, _ = staticValue(args[i+1])
			}
			break
		}
		if strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+") {
			if strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "c") {
				if i+1 >= len(args) {
					w.s.fail("shell -c without a script")
					return
				}
				script, ok := staticValue(args[i+1])
				if !ok {
					w.s.fail("shell -c script is only known at run time")
					return
				}
				w.s.split(script, w.depth+1)
				return
			}
			if v == "-o" || v == "+o" || v == "-O" || v == "+O" || v == "--rcfile" || v == "--init-file" {
				i++
			}
			continue
		}
		script = v
		break
	}
	if script != "" && !readsStdin(script) {
		return // runs a script file: the command itself is what is approved
	}
	// The shell reads its script from stdin.
	if st != nil {
		for _, r := range st.Redirs {
			switch r.Op {
			case syntax.Hdoc, syntax.DashHdoc:
				if body, ok := w.hdocBody(r); ok {
					w.s.split(body, w.depth+1)
					return
				}
				w.s.fail("here-document fed to a shell expands at run time")
				return
			case syntax.WordHdoc:
				if body, ok := staticValue(r.Word); ok {
					w.s.split(body, w.depth+1)
					return
				}
				w.s.fail("here-string fed to a shell expands at run time")
				return
			}
		}
	}
	w.s.fail("shell reads its script from stdin, a pipe or a file")
}

// hdocBody returns the script a here-document hands to its command: raw
// text under a quoted delimiter, and with backslash escapes removed under an
// unquoted one. It fails when the body contains expansions.
func (w *walker) hdocBody(r *syntax.Redirect) (string, bool) {
	if r.Hdoc == nil || len(r.Hdoc.Parts) == 0 {
		return "", true
	}
	quoted := len(r.Word.Parts) != 1
	if lit, ok := r.Word.Parts[0].(*syntax.Lit); ok && strings.Contains(lit.Value, "\\") {
		quoted = true
	} else if !ok {
		quoted = true
	}
	var b strings.Builder
	for _, part := range r.Hdoc.Parts {
		lit, ok := part.(*syntax.Lit)
		if !ok {
			return "", false
		}
		if quoted {
			b.WriteString(lit.Value)
		} else {
			b.WriteString(unescape(lit.Value, true))
		}
	}
	return b.String(), true
}

// eval splits its literal arguments as one script.
func (w *walker) eval(args []*syntax.Word) {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		v, ok := staticValue(a)
		if !ok {
			w.s.fail("eval of text only known at run time")
			return
		}
		parts = append(parts, v)
	}
	w.s.split(strings.Join(parts, " "), w.depth+1)
}

// trap's action is a script run later (on a signal or at exit).
func (w *walker) trap(args []*syntax.Word) {
	if len(args) == 0 {
		return
	}
	v, ok := staticValue(args[0])
	if !ok {
		w.s.fail("trap action only known at run time")
		return
	}
	if v == "--" {
		if len(args) < 2 {
			return
		}
		if v, ok = staticValue(args[1]); !ok {
			w.s.fail("trap action only known at run time")
			return
		}
	} else if strings.HasPrefix(v, "-") {
		return // -l, -p: listing only
	}
	w.s.split(v, w.depth+1)
}

// alias defines text that runs in place of a command name later in the
// script (bash expands aliases when expand_aliases is on).
func (w *walker) alias(args []*syntax.Word) {
	for _, a := range args {
		v, ok := staticValue(a)
		if !ok {
			w.s.fail("alias of text only known at run time")
			return
		}
		if _, body, found := strings.Cut(v, "="); found {
			w.s.split(body, w.depth+1)
		}
	}
}

// watch runs its (joined) arguments through sh -c.
func (w *walker) watch(args []*syntax.Word) {
	withValue := map[string]bool{"-n": true, "--interval": true, "-d": false, "-q": true, "--equexit": true}
	i := 0
	for i < len(args) {
		v, ok := staticValue(args[i])
		if !ok {
			w.s.fail("watch runs a command only known at run time")
			return
		}
		if !strings.HasPrefix(v, "-") {
			break
		}
		i++
		if withValue[v] {
			i++
		}
	}
	w.eval(args[min(i, len(args)):])
}

// findExec looks at find's -exec/-execdir/-ok/-okdir actions.
func (w *walker) findExec(args []*syntax.Word) {
	for i := 0; i < len(args); i++ {
		v, ok := staticValue(args[i])
		if !ok || (v != "-exec" && v != "-execdir" && v != "-ok" && v != "-okdir") {
			continue
		}
		j := i + 1
		for j < len(args) {
			t, _ := staticValue(args[j])
			if t == ";" || t == "+" {
				break
			}
			j++
		}
		if j > i+1 {
			w.s.add(w.wordsText(args[i+1 : j]))
			w.call(nil, args[i+1:j])
		}
		i = j
	}
}

// readsStdin reports script paths that are really a pipe or descriptor.
func readsStdin(p string) bool {
	return p == "-" || p == "/dev/stdin" || strings.HasPrefix(p, "/dev/fd/") ||
		(strings.HasPrefix(p, "/proc/") && strings.Contains(p, "/fd/"))
}

func isLookup(word *syntax.Word) bool {
	v, _ := staticValue(word)
	return v == "-v" || v == "-V"
}

func (w *walker) wordText(word *syntax.Word) string {
	return w.wordsText([]*syntax.Word{word})
}

func (w *walker) wordsText(words []*syntax.Word) string {
	from, to := int(words[0].Pos().Offset()), int(words[len(words)-1].End().Offset())
	if from > to || to > len(w.src) {
		return ""
	}
	return w.src[from:to]
}

// plainName reports the command name when it is a single unquoted literal
// written exactly as it runs: no escapes or line continuations, no
// expansions and no glob characters.
func (w *walker) plainName(word *syntax.Word) (string, bool) {
	if len(word.Parts) != 1 {
		return "", false
	}
	lit, ok := word.Parts[0].(*syntax.Lit)
	if ok && lit.Value == "[" && w.wordText(word) == "[" {
		return "[", true // the test command
	}
	if !ok || strings.ContainsAny(lit.Value, "\\*?[{") || w.wordText(word) != lit.Value {
		return "", false
	}
	return lit.Value, true
}

// staticValue returns a word's value after quote removal when it contains no
// expansions at all.
func staticValue(word *syntax.Word) (string, bool) { return quoteRemoved(word, true) }

// unquote returns a here-document delimiter without its quotes; expansions
// in it, which the shell does not expand there, are left out.
func unquote(word *syntax.Word) string {
	v, _ := quoteRemoved(word, false)
	return v
}

// quoteRemoved returns a word's literal text after quote removal. Strict, a
// word with an expansion ($'...', $x, $(...)) has no static value (false);
// otherwise expansions are skipped.
func quoteRemoved(word *syntax.Word, strict bool) (string, bool) {
	if word == nil {
		return "", true
	}
	var b strings.Builder
	for _, part := range word.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, false))
		case *syntax.SglQuoted:
			if p.Dollar && strict {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, dp := range p.Parts {
				lit, ok := dp.(*syntax.Lit)
				if ok {
					b.WriteString(unescape(lit.Value, true))
				} else if strict {
					return "", false
				}
			}
		default:
			if strict {
				return "", false
			}
		}
	}
	return b.String(), true
}

// unescape removes backslash escapes the way the shell does outside quotes
// (any character) or inside double quotes ($ ` " \ and newline only).
func unescape(s string, dquoted bool) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		next := s[i+1]
		if dquoted && !strings.ContainsRune("$`\"\\\n", rune(next)) {
			b.WriteByte(c)
			continue
		}
		i++
		if next != '\n' {
			b.WriteByte(next)
		}
	}
	return b.String()
}

// shells are interpreters whose -c argument or stdin is a shell script.
// "posix" ones are split with the bash parser; for the others any use
// makes the line opaque.
var shells = map[string]string{
	"sh": "posix", "bash": "posix", "dash": "posix", "zsh": "posix", "ksh": "posix",
	"mksh": "posix", "ash": "posix", "rbash": "posix", "su": "posix", "runuser": "posix",
	"fish": "other", "csh": "other", "tcsh": "other", "busybox": "other",
}

type wrapperOpts struct {
	// withValue lists options that take the following word as their value.
	withValue map[string]bool
	// positional is the number of non-option words before the command.
	positional int
}

// wrappers run the command given in their arguments.
var wrappers = map[string]wrapperOpts{
	"env":     {withValue: set("-u", "--unset", "-C", "--chdir")},
	"sudo":    {withValue: set("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "--user", "--group", "--chdir", "--prompt")},
	"doas":    {withValue: set("-u", "-C")},
	"nohup":   {},
	"setsid":  {},
	"command": {},
	"builtin": {},
	"exec":    {withValue: set("-a")},
	"nice":    {withValue: set("-n", "--adjustment")},
	"ionice":  {withValue: set("-c", "-n", "--class", "--classdata")},
	"stdbuf":  {withValue: set("-i", "-o", "-e")},
	"timeout": {withValue: set("-s", "--signal", "-k", "--kill-after"), positional: 1},
	"time":    {withValue: set("-f", "--format", "-o", "--output")},
	"xargs": {withValue: set("-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L",
		"-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars")},
	"strace":     {withValue: set("-o", "-e", "-p", "-s", "-u")},
	"ltrace":     {withValue: set("-o", "-e", "-p", "-s", "-u")},
	"chroot":     {positional: 1},
	"unbuffer":   {},
	"flock":      {withValue: set("-w", "--timeout", "-E", "--conflict-exit-code"), positional: 1},
	"caffeinate": {},
}

func set(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}
