package permission

// DefaultRules returns the rules written to a new permissions.json: ask
// before reading .env files; allow reading files inside the workspace, the
// tool-search tools, and shell commands that only read (listing, reading
// text, system information, read-only git). Commands that change things or
// can run other commands (rm, git push, env, find, xargs...) are not
// allowed and so are asked.
func DefaultRules() Rules {
	rs := Rules{
		Ask: []Rule{
			fileRead("**/.env"),
			fileRead("**/.env.*"),
		},
		Allow: []Rule{
			fileRead("**"),
			generic("pytools_list_categories"),
			generic("pytools_list_tools"),
			generic("pytools_search_tools"),
		},
	}
	// A bare form and a "<cmd> *" form: "git status *" does not match
	// "git status".
	for _, c := range []string{
		"ls", "ps", "uname", "id", "df", "git status", "git log", "git diff", "git show", "git ls-files",
		"git describe", "git shortlog",
	} {
		rs.Allow = append(rs.Allow, shellRule(c), shellRule(c+" *"))
	}
	// Only with arguments (no bare form is useful) ...
	for _, c := range []string{
		"which", "whereis", "type", "stat", "file", "du", "wc", "cat", "head", "tail",
		"grep", "diff", "realpath", "basename", "dirname",
		"git blame", "git ls-tree", "git cat-file", "git rev-parse", "git config --get",
	} {
		rs.Allow = append(rs.Allow, shellRule(c+" *"))
	}
	// ... or only bare: with arguments these could change state
	// ("git branch -D x", "date -s", "tree -o file", "git reflog expire").
	for _, c := range []string{
		"pwd", "whoami", "hostname", "date", "uptime", "tree",
		"git branch", "git tag", "git reflog", "git remote", "git remote -v",
		"git stash list", "git worktree list", "git config --list",
	} {
		rs.Allow = append(rs.Allow, shellRule(c))
	}
	return rs
}

func fileRead(path string) Rule {
	return Rule{Type: TypeFileRead, ToolName: "filesystem_*", Path: path}
}

func generic(name string) Rule {
	return Rule{Type: TypeGenericCall, ToolName: name}
}

func shellRule(command string) Rule {
	return Rule{Type: TypeShellAction, ToolName: ShellTool, Command: command}
}
