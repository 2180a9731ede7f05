package shell

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Access is a file that a command line reads or writes, as far as its
// words show before it runs.
type Access struct {
	// Path is the file as the command sees it after quote removal, brace
	// expansion and globbing: relative to the directory the command runs
	// in unless absolute. For a Dynamic access it is the word as written.
	Path string
	// Write: the command creates, changes or removes the file (or, for a
	// folder, files below it).
	Write bool
	// Recursive: the command reads (or, with Write, changes) everything
	// below Path when it is a folder (grep -r, rg, find, cp -r, rm -r).
	Recursive bool
	// Dynamic: the file is only known when the command runs: the word
	// holds a parameter expansion, a command substitution or a tilde, or
	// the arguments come from elsewhere (xargs).
	Dynamic bool
	// Unnamed: the files are named by data, not by the command's words:
	// the entries of an archive or patch it applies, files git checks out
	// or merges (Write), or git history it prints (a read of every file the
	// repository ever held). Path is empty then; nothing short of running
	// the command tells which files.
	Unnamed bool
	// By names what makes the access: for writes the word a permission
	// rule must name to cover it (">" for a redirection, "--output",
	// "-i", "tee"); for reads the program.
	By string
}

// maxGlobDirs bounds the folders listed to expand the globs of one line;
// past it the words are treated as only known at run time.
const maxGlobDirs = 2000

var errTooManyDirs = errors.New("too many folders to expand")

// FileAccesses lists the files that the simple commands of line read and
// write, as far as their words show, with globs expanded against dir (the
// folder the line runs in; "" expands no globs). It looks at the same commands Split does,
// wrapped and nested ones included, and at redirections.
//
// Every word of a command that is not known to take no files (ls, echo,
// stat...) is a possible file it reads, and so are the parts of a word
// after "=", ":" or "@" and the value glued to a short option ("-f.env"):
// most false positives are words that name no file at all. Writes are found
// for redirections and for the programs in a table (tee, cp, mv, rm, sed -i,
// sort -o, git --output, curl -o, find -delete, ...); what any other program
// does with its arguments is not known. A line that does not parse gives
// no accesses: Split makes it opaque.
func FileAccesses(line, dir string) []Access {
	s := &splitter{seen: map[string]bool{}, files: &collector{dir: dir}}
	s.split(line, 0)
	return s.files.out
}

// collector gathers the accesses of the commands the walker visits.
type collector struct {
	dir    string
	listed int // folders listed for globbing
	out    []Access
	seen   map[Access]bool
}

func (c *collector) add(a Access) {
	if a.Path == "" && !a.Write && !a.Dynamic && !a.Unnamed {
		return
	}
	if c.seen == nil {
		c.seen = map[Access]bool{}
	}
	if !c.seen[a] {
		c.seen[a] = true
		c.out = append(c.out, a)
	}
}

// arg is one word of a command.
type arg struct {
	text   string   // as written
	value  string   // after quote removal; valid when static
	static bool     // no expansion happens at run time
	fields []string // after brace expansion and globbing (static words)
}

// word evaluates w.
func (c *collector) word(w *syntax.Word, src string) arg {
	a := arg{text: wordSource(w, src)}
	a.value, a.static = staticValue(w)
	if a.static && hasTilde(w) {
		a.static = false
	}
	if !a.static {
		return a
	}
	if c.dir == "" {
		// No folder to glob in: brace expansion and quote removal only.
		if fields, err := expand.Fields(&expand.Config{}, w); err == nil {
			a.fields = fields
		} else {
			a.static = false
		}
		return a
	}
	cfg := &expand.Config{
		Env: expand.ListEnviron("PWD=" + c.dir),
		ReadDir2: func(d string) ([]fs.DirEntry, error) {
			if c.listed++; c.listed > maxGlobDirs {
				return nil, errTooManyDirs
			}
			return os.ReadDir(d)
		},
		// The widest the shell's options could make a glob: whether a
		// pattern can reach a file must not depend on shopt settings the
		// environment (BASHOPTS) may carry.
		GlobStar: true, DotGlob: true, NoCaseGlob: true,
	}
	fields, err := expand.Fields(cfg, w)
	if err != nil {
		a.static = false
		return a
	}
	a.fields = fields
	return a
}

// hasTilde reports a word the shell starts with tilde expansion, or one
// whose "=~" or ":~" could be expanded as in an assignment.
func hasTilde(w *syntax.Word) bool {
	for i, p := range w.Parts {
		lit, ok := p.(*syntax.Lit)
		if !ok {
			continue
		}
		if i == 0 && strings.HasPrefix(lit.Value, "~") {
			return true
		}
		if strings.Contains(lit.Value, "=~") || strings.Contains(lit.Value, ":~") {
			return true
		}
	}
	return false
}

func wordSource(w *syntax.Word, src string) string {
	from, to := int(w.Pos().Offset()), int(w.End().Offset())
	if from < 0 || from > to || to > len(src) {
		return ""
	}
	return src[from:to]
}

// redirect records the file a redirection reads or writes.
func (c *collector) redirect(r *syntax.Redirect, src string) {
	if r.Word == nil {
		return
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return
	case syntax.DplIn, syntax.DplOut:
		if v, ok := staticValue(r.Word); ok && isDescriptor(v) {
			return
		}
	}
	write := r.Op != syntax.RdrIn && r.Op != syntax.DplIn
	a := c.word(r.Word, src)
	if !a.static {
		c.add(Access{Path: a.text, Write: write, Dynamic: true, By: ">"})
		return
	}
	for _, f := range a.fields {
		if harmlessTarget[f] {
			continue
		}
		c.add(Access{Path: f, Write: write, By: ">"})
		if r.Op == syntax.RdrInOut {
			c.add(Access{Path: f, By: ">"})
		}
	}
}

// command records the accesses of one simple command; args[0] is its name.
func (c *collector) command(args []*syntax.Word, src string) {
	name, _ := staticValue(args[0])
	base := path.Base(name)
	words := make([]arg, len(args)-1)
	for i, w := range args[1:] {
		words[i] = c.word(w, src)
	}
	p := programs[base]
	switch base {
	case "git":
		p = gitProgram(words)
	case "tar", "bsdtar":
		p.extracts = tarExtracts(words)
	}
	if !p.noFiles {
		for _, a := range words {
			if !a.static {
				c.add(Access{Path: a.text, Dynamic: true, By: base})
			}
			for _, f := range a.fields {
				for _, cand := range candidates(f) {
					c.add(Access{Path: cand, By: base})
				}
			}
		}
	}
	if base == "xargs" {
		c.add(Access{Path: "(arguments from standard input)", Dynamic: true, By: base})
	}
	c.program(base, p, words)
}

// candidates returns the paths a word could name: itself, and the text
// after "=", ":" or "@" or after a one-letter option.
func candidates(w string) []string {
	out := []string{w}
	for _, sep := range []string{"=", ":", "@"} {
		if _, after, ok := strings.Cut(w, sep); ok && after != "" {
			out = append(out, after)
		}
	}
	if len(w) > 2 && w[0] == '-' && w[1] != '-' {
		out = append(out, w[2:])
	}
	return out
}

// program describes what a program does with its arguments.
type program struct {
	// noFiles: reads no file content (ls, stat, echo...); its words are
	// not taken for files it reads.
	noFiles bool
	// writesOperands: every operand is written or removed (tee, rm...).
	writesOperands bool
	// copies: the last operand (or -t DIR) receives the others (cp, mv).
	copies bool
	// writeOpts are options whose value is a file the program writes.
	writeOpts []string
	// writeFlags are options that make it write or run something whose
	// target is not a word (-i rewrites the operands, -exec runs a
	// command, -O saves under a name the server gives).
	writeFlags []string
	// inPlace lists writeFlags that make it rewrite its operands.
	inPlace []string
	// valueOpts take the following word as their value.
	valueOpts []string
	// recursive: always reads below its operands (rg, find); recurseFlags
	// make it do so (grep -r, cp -r).
	recursive    bool
	recurseFlags []string
	// patternFirst: the first operand is a pattern and with no other
	// operand the program searches the current folder (grep -r, rg).
	patternFirst bool
	// startPoints: the operands before the first option are the folders
	// walked, "." when there are none (find).
	startPoints bool
	// alwaysWrites: the program writes files whose names its words do not
	// give (wget, unzip, tar x).
	alwaysWrites bool
	// writesOperand is the 1-based operand it writes (uniq IN OUT), 0 none.
	writesOperand int
	// assignWrite is the prefix of an operand naming a written file (dd of=).
	assignWrite string
	// moves: the sources of a copy go away (mv).
	moves bool
	// singleDashLong: its options are words like -name or -out (find, openssl).
	singleDashLong bool
	// extracts: it writes files named inside its input (an archive, a
	// patch, git objects): Access.Unnamed.
	extracts bool
	// history: it prints file content from git history (Access.Unnamed).
	history bool
	// readOpts are options whose value is a file it reads, even for a
	// program that reads no other files (file -f, du --files0-from).
	readOpts []string
}

// program records writes and recursive reads by p's rules.
func (c *collector) program(name string, p program, words []arg) {
	writes := func(a arg, by string, recursive bool) {
		if !a.static {
			c.add(Access{Path: a.text, Write: true, Dynamic: true, By: by})
			return
		}
		for _, f := range a.fields {
			c.add(Access{Path: f, Write: true, Recursive: recursive, By: by})
		}
	}
	literal := func(v string) arg { return arg{text: v, value: v, static: true, fields: []string{v}} }
	if p.alwaysWrites {
		c.add(Access{Write: true, By: name})
	}
	if p.extracts {
		c.add(Access{Write: true, Unnamed: true, By: name})
	}
	if p.history {
		c.add(Access{Unnamed: true, By: name})
	}
	reads := func(a arg) {
		if !a.static {
			c.add(Access{Path: a.text, Dynamic: true, By: name})
			return
		}
		for _, f := range a.fields {
			c.add(Access{Path: f, By: name})
		}
	}
	var (
		operands     []arg
		target       *arg // -t DIR of cp, mv, ln, install
		recursive    = p.recursive
		patternGiven = false
		inPlace      = false
		endOpts      = false
	)
	flag := func(o string) {
		if matchOpt(p.writeFlags, o) {
			c.add(Access{Write: true, By: o})
			inPlace = inPlace || matchOpt(p.inPlace, o)
		}
		if matchOpt(p.recurseFlags, o) {
			recursive = true
		}
		if o == "-e" || o == "-f" || o == "--regexp" || o == "--file" {
			patternGiven = true
		}
	}
	for i := 0; i < len(words); i++ {
		a := words[i]
		v := a.value
		if endOpts || !a.static || !strings.HasPrefix(v, "-") || v == "-" {
			operands = append(operands, a)
			continue
		}
		if v == "--" {
			endOpts = true
			continue
		}
		next := func() (arg, bool) {
			if i+1 < len(words) {
				i++
				return words[i], true
			}
			return arg{}, false
		}
		if strings.HasPrefix(v, "--") || p.singleDashLong {
			opt, val, hasVal := strings.Cut(v, "=")
			flag(opt)
			if matchOpt(p.recurseFlags, v) {
				recursive = true
			}
			var value arg
			switch {
			case hasVal:
				value = literal(val)
			case matchOpt(p.writeOpts, opt) || matchOpt(p.valueOpts, opt) || matchOpt(p.readOpts, opt) || (p.copies && matchOpt([]string{"--target-directory"}, opt)):
				if value, hasVal = next(); !hasVal {
					continue
				}
			default:
				continue
			}
			switch {
			case matchOpt(p.writeOpts, opt):
				writes(value, opt, false)
			case matchOpt(p.readOpts, opt):
				reads(value)
			case p.copies && matchOpt([]string{"--target-directory"}, opt):
				target = &value
			case opt == "--directories" && value.value == "recurse":
				recursive = true
			}
			continue
		}
		// A cluster of one-letter options; the first that takes a value
		// takes the rest of the word or the next word.
		for j := 1; j < len(v); j++ {
			o := "-" + v[j:j+1]
			flag(o)
			if !slices.Contains(p.writeOpts, o) && !slices.Contains(p.valueOpts, o) && !slices.Contains(p.readOpts, o) && (o != "-t" || !p.copies) {
				continue
			}
			value := literal(v[j+1:])
			if j+1 == len(v) {
				var ok bool
				if value, ok = next(); !ok {
					break
				}
			}
			switch {
			case slices.Contains(p.writeOpts, o):
				writes(value, o, false)
			case slices.Contains(p.readOpts, o):
				reads(value)
			case o == "-t" && p.copies:
				target = &value
			case o == "-d" && value.value == "recurse":
				recursive = true
			}
			break
		}
	}
	for i, a := range operands {
		switch {
		case p.writesOperands, inPlace, p.writesOperand == i+1:
			by := name
			if inPlace {
				by = "-i"
			}
			// tar's recursion is in what it reads.
			writes(a, by, recursive && name != "tar")
		case p.assignWrite != "" && a.static && strings.HasPrefix(a.value, p.assignWrite):
			writes(literal(strings.TrimPrefix(a.value, p.assignWrite)), p.assignWrite, false)
		}
	}
	if p.copies && (len(operands) > 1 || target != nil) {
		dest, sources := target, operands
		if dest == nil {
			dest, sources = &operands[len(operands)-1], operands[:len(operands)-1]
		}
		// A folder receives the sources (below, by name); copying into
		// the folder the command runs in is not a write of all of it.
		intoHere := dest.static && len(dest.fields) == 1 && c.dir != "" && path.Clean(c.abs(dest.fields[0])) == path.Clean(c.dir)
		writes(*dest, name, !intoHere)
		if p.moves {
			for _, s := range sources {
				writes(s, name, true)
			}
		}
		// Into a folder, each source lands under its own name.
		for _, d := range dest.fields {
			for _, s := range sources {
				for _, f := range s.fields {
					c.add(Access{Path: path.Join(d, path.Base(f)), Write: true, Recursive: true, By: name})
				}
			}
		}
		operands = sources
	}
	if recursive {
		c.recursive(name, p, words, operands, patternGiven)
	}
}

// recursive records the folders a recursive reader walks: its operands
// (for find, the words before the first option), and the current folder
// when none of them exists (grep -r PATTERN, rg PATTERN, find).
func (c *collector) recursive(name string, p program, words, operands []arg, patternGiven bool) {
	var roots []arg
	switch {
	case p.startPoints:
		for _, a := range words {
			if a.static && (strings.HasPrefix(a.value, "-") || a.value == "(" || a.value == "!" || a.value == ",") {
				break
			}
			roots = append(roots, a)
		}
	case p.patternFirst && !patternGiven && len(operands) > 0:
		roots = operands[1:]
	default:
		roots = operands
	}
	exists := false
	for _, a := range roots {
		if !a.static {
			exists = true // asked for already as a dynamic word
			continue
		}
		for _, f := range a.fields {
			if _, err := os.Stat(c.abs(f)); err == nil {
				exists = true
			}
			c.add(Access{Path: f, Recursive: true, By: name})
		}
	}
	if !exists && (p.startPoints || p.patternFirst) {
		c.add(Access{Path: ".", Recursive: true, By: name})
	}
}

// matchOpt reports whether option o is in opts: exactly, or for a long
// option ("--outp") as the unambiguous abbreviation GNU getopt accepts,
// taken here for any listed option it starts.
func matchOpt(opts []string, o string) bool {
	for _, x := range opts {
		if x == o || strings.HasPrefix(o, "--") && len(o) > 3 && strings.HasPrefix(x, o) {
			return true
		}
	}
	return false
}

func (c *collector) abs(p string) string {
	if path.IsAbs(p) || c.dir == "" {
		return p
	}
	return path.Join(c.dir, p)
}

// gitProgram returns the rules of a git command by its subcommand: --output
// writes for every command that takes diff options; format-patch and
// archive take -o; grep searches recursively; the subcommands that write
// files named by commits, patches or stashes (gitExtracts) and those that
// print file content from history (gitHistory) have Unnamed accesses.
func gitProgram(words []arg) program {
	p := program{writeOpts: []string{"--output"}, valueOpts: []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace"}}
	for i, a := range words {
		if !a.static {
			// A subcommand only known at run time could be any of them.
			p.extracts, p.history = true, true
			break
		}
		switch {
		case a.value == "-C" || a.value == "-c" || a.value == "--git-dir" || a.value == "--work-tree" || a.value == "--namespace":
			continue // its value follows; skipped as an option word below
		case strings.HasPrefix(a.value, "-"):
			continue
		case i > 0 && slices.Contains([]string{"-C", "-c", "--git-dir", "--work-tree", "--namespace"}, words[i-1].value):
			continue
		}
		switch sub := a.value; {
		case sub == "format-patch":
			p.writeOpts = append(p.writeOpts, "-o", "--output-directory")
			p.history = true
		case sub == "archive":
			p.writeOpts = append(p.writeOpts, "-o")
			p.history = true
		case sub == "grep":
			p.recursive, p.patternFirst = true, true
			p.valueOpts = append(p.valueOpts, "-e", "-f", "-m", "-A", "-B", "-C", "--max-depth")
			p.history = true // git grep PATTERN REV searches history
		case gitExtracts[sub]:
			p.extracts = true
			p.history = sub == "stash" // stash show -p
		case gitHistory[sub]:
			p.history = !strings.HasPrefix(sub, "diff") || !summaryOnly(words[i+1:])
		case sub == "log" || sub == "reflog" || sub == "whatchanged":
			p.history = slices.ContainsFunc(words[i+1:], func(w arg) bool { return !w.static || printsPatch(w.value) })
		}
		break
	}
	return p
}

// gitExtracts are the git subcommands that write files of the work tree
// (or .git) whose names come from commits, patches or stashes.
var gitExtracts = map[string]bool{
	"apply": true, "am": true, "checkout": true, "restore": true, "reset": true, "stash": true, "merge": true,
	"cherry-pick": true, "switch": true, "pull": true, "rebase": true, "revert": true, "read-tree": true,
	"checkout-index": true, "clone": true, "worktree": true, "submodule": true, "bisect": true,
	"sparse-checkout": true, "mv": true, "rm": true, "clean": true, "update-index": true, "merge-file": true,
	"bundle": true, "fetch": true, "init": true, "filter-branch": true, "replace": true,
}

// gitHistory are the git subcommands that print file content from
// commits, trees or blobs.
var gitHistory = map[string]bool{
	"show": true, "diff": true, "cat-file": true, "diff-tree": true, "diff-index": true, "diff-files": true,
	"range-diff": true, "fast-export": true, "blame": true, "annotate": true, "notes": true, "difftool": true,
	"show-index": true, "unpack-objects": true, "verify-pack": true, "archive": true, "instaweb": true, "send-email": true,
}

// summaryOnly reports git diff options that print names and counts, not
// content (--stat, --name-only...), with nothing asking for a patch.
func summaryOnly(words []arg) bool {
	summary := false
	for _, w := range words {
		opt, _, _ := strings.Cut(w.value, "=")
		switch {
		case !w.static || printsPatch(w.value) && opt != "--patch-with-stat":
			return false
		case slices.Contains([]string{"--stat", "--numstat", "--shortstat", "--dirstat", "--name-only", "--name-status", "--quiet", "--summary", "--compact-summary", "--raw"}, opt):
			summary = true
		}
	}
	return summary
}

// printsPatch reports a git log option that prints file content (a patch,
// a line history) or searches it.
func printsPatch(o string) bool {
	for _, p := range []string{"-p", "-u", "-U", "--patch", "-L", "--word-diff", "--color-words", "-S", "-G",
		"--pickaxe", "-c", "--cc", "--unified", "--diff-merges", "--remerge-diff", "--dd", "-m", "--full-diff", "--ext-diff", "--textconv"} {
		if o == p || strings.HasPrefix(o, p) && (len(p) == 2 || strings.HasPrefix(o, p+"=")) {
			return true
		}
	}
	// A cluster of one-letter options holding p or u (-np).
	return len(o) > 1 && o[0] == '-' && o[1] != '-' && strings.ContainsAny(o[1:], "puLSGcm")
}

// tarExtracts reports a tar command that extracts (x, --extract, --get;
// also --to-command, which runs a program on each entry), with the mode
// letters in the first word or in any cluster of one-letter options. A
// word only known at run time could be such a mode.
func tarExtracts(words []arg) bool {
	for i, a := range words {
		v := a.value
		switch {
		case !a.static:
			return true
		case strings.HasPrefix(v, "--"):
			opt, _, _ := strings.Cut(v, "=")
			if matchOpt([]string{"--extract", "--get", "--to-command"}, opt) {
				return true
			}
		case strings.HasPrefix(v, "-") || i == 0:
			if strings.Contains(strings.TrimPrefix(v, "-"), "x") {
				return true
			}
		}
	}
	return false
}

var grepValueOpts = []string{"-e", "-f", "-m", "-A", "-B", "-C", "-d", "-D", "--regexp", "--file", "--max-count",
	"--after-context", "--before-context", "--context", "--directories", "--devices", "--include", "--exclude",
	"--exclude-dir", "--exclude-from", "--label", "--binary-files", "--color", "--colour"}

var grepRecurse = []string{"-r", "-R", "--recursive", "--dereference-recursive", "--directories=recurse", "-drecurse"}

var rgValueOpts = []string{"-e", "-f", "-g", "-t", "-T", "-m", "-A", "-B", "-C", "-j", "-M", "-E", "-r", "--regexp",
	"--file", "--glob", "--iglob", "--type", "--type-not", "--max-count", "--after-context", "--before-context",
	"--context", "--threads", "--max-columns", "--encoding", "--replace", "--max-depth", "--max-filesize",
	"--type-add", "--ignore-file", "--sort", "--sortr", "--colors", "--color", "--path-separator"}

// programs are the programs whose arguments are understood beyond "any
// word may be a file it reads".
var programs = map[string]program{}

func init() {
	for _, n := range []string{"ls", "stat", "du", "realpath", "readlink", "basename", "dirname", "which", "whereis",
		"type", "command", "pwd", "whoami", "hostname", "id", "uname", "date", "uptime", "ps", "df",
		"echo", "printf", "true", "false", "test", "[", "sleep", "kill", "env", "nproc",
		"groups", "locale", "tty", "clear", "seq", "yes", "cd", "pushd", "popd", "export", "unset"} {
		programs[n] = program{noFiles: true}
	}
	programs["tree"] = program{noFiles: true, writeOpts: []string{"-o"}, valueOpts: []string{"-L", "-P", "-I", "--charset", "--filelimit", "--timefmt"}}
	programs["file"] = program{noFiles: true, writeFlags: []string{"-C", "--compile"}, valueOpts: []string{"-F", "-e", "-P", "--separator", "--exclude", "--parameter"},
		readOpts: []string{"-f", "--files-from", "-m", "--magic-file"}} // their errors print the lines read
	programs["du"] = program{noFiles: true, readOpts: []string{"--files0-from", "-X", "--exclude-from"}}
	for _, n := range []string{"tee", "unlink", "shred", "mkfifo", "mknod", "chattr"} {
		programs[n] = program{writesOperands: true, valueOpts: []string{"-m", "--mode", "-n", "--iterations", "-s", "--size"}}
	}
	programs["touch"] = program{writesOperands: true, valueOpts: []string{"-d", "-t", "-r", "--date", "--reference"}}
	programs["truncate"] = program{writesOperands: true, valueOpts: []string{"-s", "-r", "--size", "--reference"}}
	programs["rm"] = program{writesOperands: true, recurseFlags: []string{"-r", "-R", "--recursive"}}
	for _, n := range []string{"chmod", "chown", "chgrp", "setfacl"} {
		programs[n] = program{writesOperands: true, recurseFlags: []string{"-R", "--recursive"}, valueOpts: []string{"--reference", "-m", "-x", "--modify", "--remove"}}
	}
	for _, n := range []string{"mkdir", "rmdir"} {
		programs[n] = program{noFiles: true, writesOperands: true, valueOpts: []string{"-m", "--mode"}}
	}
	programs["cp"] = program{copies: true, valueOpts: []string{"-S", "--suffix", "--backup", "--sparse", "--reflink", "--preserve", "--no-preserve"}, recurseFlags: []string{"-r", "-R", "-a", "--recursive", "--archive"}}
	programs["mv"] = program{copies: true, moves: true, valueOpts: []string{"-S", "--suffix", "--backup"}}
	programs["ln"] = program{copies: true, valueOpts: []string{"-S", "--suffix", "--backup"}}
	programs["install"] = program{copies: true, valueOpts: []string{"-m", "-o", "-g", "-S", "--mode", "--owner", "--group", "--suffix"}}
	programs["rsync"] = program{copies: true, valueOpts: []string{"-e", "--rsh", "-f", "--filter", "--exclude", "--include", "--exclude-from", "--include-from", "--files-from", "--log-file", "-T", "--temp-dir", "--partial-dir", "--backup-dir"}, writeOpts: []string{"--log-file"}, recurseFlags: []string{"-r", "-a", "--recursive", "--archive"}}
	programs["scp"] = program{copies: true, valueOpts: []string{"-P", "-i", "-F", "-o", "-c", "-l", "-S", "-J"}, recurseFlags: []string{"-r"}}
	programs["dd"] = program{assignWrite: "of="}
	programs["uniq"] = program{writesOperand: 2, valueOpts: []string{"-f", "-s", "-w"}}
	programs["xxd"] = program{writesOperand: 2, valueOpts: []string{"-c", "-g", "-l", "-s", "-o", "-n"}}
	programs["sed"] = program{writeFlags: []string{"-i", "--in-place"}, inPlace: []string{"-i", "--in-place"}, valueOpts: []string{"-e", "-f", "-l", "--expression", "--file", "--line-length"}}
	programs["perl"] = program{writeFlags: []string{"-i"}, inPlace: []string{"-i"}, valueOpts: []string{"-e", "-E", "-M", "-m", "-I", "-x"}}
	programs["sort"] = program{writeOpts: []string{"-o", "--output"}, valueOpts: []string{"-k", "-t", "-S", "-T", "--key", "--field-separator", "--buffer-size", "--temporary-directory"}}
	programs["curl"] = program{
		writeOpts:  []string{"-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii", "--libcurl", "--output-dir", "--etag-save", "--stderr"},
		writeFlags: []string{"-O", "--remote-name", "--remote-name-all", "-J", "--remote-header-name"},
		valueOpts:  []string{"-d", "--data", "--data-binary", "--data-raw", "--data-urlencode", "-H", "--header", "-X", "--request", "-u", "--user", "-F", "--form", "-T", "--upload-file", "-K", "--config", "-A", "--user-agent", "-e", "--referer", "-b", "--cookie", "-x", "--proxy", "-m", "--max-time", "--connect-timeout", "-w", "--write-out", "-r", "--range", "-E", "--cert", "--key", "--cacert"},
	}
	programs["wget"] = program{alwaysWrites: true, writeOpts: []string{"-O", "--output-document", "-o", "--output-file", "-a", "--append-output", "-P", "--directory-prefix"}}
	programs["find"] = program{recursive: true, startPoints: true, singleDashLong: true,
		writeOpts:  []string{"-fprint", "-fprint0", "-fprintf", "-fls"},
		writeFlags: []string{"-delete", "-exec", "-execdir", "-ok", "-okdir"}}
	for _, n := range []string{"fd", "fdfind"} {
		programs[n] = program{recursive: true, patternFirst: true,
			writeFlags: []string{"-x", "-X", "--exec", "--exec-batch"},
			valueOpts:  []string{"-e", "-t", "-E", "-d", "-j", "-c", "-S", "--extension", "--type", "--exclude", "--max-depth", "--threads", "--size", "--color"}}
	}
	for _, n := range []string{"grep", "egrep", "fgrep", "zgrep"} {
		programs[n] = program{patternFirst: true, recurseFlags: grepRecurse, valueOpts: grepValueOpts}
	}
	programs["rgrep"] = program{recursive: true, patternFirst: true, valueOpts: grepValueOpts}
	programs["rg"] = program{recursive: true, patternFirst: true, valueOpts: rgValueOpts,
		writeFlags: []string{"--pre"}} // --pre runs a command on every file
	for _, n := range []string{"ag", "ack", "ack-grep"} {
		programs[n] = program{recursive: true, patternFirst: true, writeFlags: []string{"--pager"},
			valueOpts: []string{"-G", "-g", "--ignore", "--ignore-dir", "-A", "-B", "-C", "-m", "--type", "--pager"}}
	}
	programs["diff"] = program{recurseFlags: []string{"-r", "--recursive"}, valueOpts: []string{"-C", "-U", "-D", "-F", "-I", "-L", "-S", "-W", "-x", "-X", "--label", "--exclude", "--exclude-from", "--ifdef"}}
	// tar's mode letters need no dash (tar czf out.tgz dir): every operand
	// may be the archive it writes, and extracting writes names it reads.
	programs["tar"] = program{alwaysWrites: true, writesOperands: true, recursive: true, writeOpts: []string{"-f", "--file"}, valueOpts: []string{"-C", "--directory", "-T", "--files-from", "-X", "--exclude-from", "--exclude"}}
	programs["zip"] = program{writesOperand: 1, recurseFlags: []string{"-r", "--recurse-paths"}}
	programs["unzip"] = program{alwaysWrites: true, extracts: true, valueOpts: []string{"-d", "-x"}}
	programs["patch"] = program{alwaysWrites: true, extracts: true, writeOpts: []string{"-o", "--output", "-r", "--reject-file"},
		valueOpts: []string{"-p", "-d", "--directory", "-i", "--input", "-B", "-F", "-D", "-z", "-V"}}
	for _, n := range []string{"cpio", "7z", "7za", "7zr", "unrar", "pax", "ar", "unar"} {
		programs[n] = program{alwaysWrites: true, extracts: true}
	}
	for _, n := range []string{"split", "csplit"} {
		programs[n] = program{alwaysWrites: true}
	}
	for _, n := range []string{"cc", "gcc", "g++", "c++", "clang", "clang++", "ld"} {
		programs[n] = program{writeOpts: []string{"-o"}}
	}
	programs["go"] = program{writeOpts: []string{"-o"}}
	for _, n := range []string{"time", "strace", "ltrace"} {
		programs[n] = program{writeOpts: []string{"-o", "--output"}}
	}
	programs["openssl"] = program{singleDashLong: true, writeOpts: []string{"-out", "-keyout"}}
}
