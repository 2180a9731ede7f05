package permission

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// guardWorkspace makes a workspace with the default rules, a .env, a
// source folder, a symbolic and a hard link to .env, and the protected
// config files.
func guardWorkspace(t *testing.T) (*Manager, string) {
	t.Helper()
	m, ws := openTemp(t)
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".env", "KEY=secret\n")
	write("src/a.go", "package a\n")
	write("docs/readme.md", "hello\n")
	write("vault/inner/.env", "KEY=other\n")
	write(".freeact/agent.json", "{}\n")
	write(".freeact/sandbox-config.json", "{}\n")
	write("settings/my-srt.json", "{}\n")
	write("deep/.env", "KEY=third\n")
	write("deep/inner/x", "")
	if err := os.Symlink("deep/inner", filepath.Join(ws, "src-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".env", filepath.Join(ws, "env-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(ws, ".env"), filepath.Join(ws, "docs", "notes.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(ws, ".freeact", "permissions.json"), filepath.Join(ws, "perm-copy.json")); err != nil {
		t.Fatal(err)
	}
	m.Protect(filepath.Join(".freeact", "agent.json"), filepath.Join(ws, ".freeact", "sandbox-config.json"), "settings/my-srt.json")
	return m, ws
}

func TestShellArgumentsMeetFileRules(t *testing.T) {
	m, ws := guardWorkspace(t)
	tests := []struct {
		command string
		want    Decision
		reason  string // substring of Verdict.Reason
	}{
		// Reading a file an ask rule names is asked, whatever the form.
		{"cat .env", Ask, `the rule ShellAction bash "cat *" allows it, but it reads .env, which the rule FileRead filesystem_* **/.env asks for`},
		{"head .env", Ask, "it reads .env"},
		{"head -n 5 .env", Ask, "it reads .env"},
		{"tail -f ./.env", Ask, "it reads .env,"},
		{"cat src/../.env", Ask, "it reads .env,"},
		{"cat .e*", Ask, "it reads .env"},
		{"cat {x,.env}", Ask, "it reads .env"},
		{`cat ".env"`, Ask, "it reads .env"},
		{"cat < .env", Ask, "it reads .env"},
		{"wc -l vault/inner/.env", Ask, "vault/inner/.env"},
		{"git show HEAD:.env", Ask, "it reads .env"},
		{"git diff HEAD -- .env", Ask, "it reads .env"},
		{"diff .env src/a.go", Ask, "it reads .env"},
		{"cat env-link", Ask, "it reads .env,"},
		{"cat docs/notes.txt", Ask, "docs/notes.txt, a hard link to .env"},
		// Recursive readers over a folder holding such a file.
		{"grep -r KEY .", Ask, "grep reads everything below ., including .env"},
		{"grep -rn KEY", Ask, "grep reads everything below ."},
		{"grep -R KEY vault", Ask, "including vault/inner/.env"},
		{"grep --recursive KEY docs", Ask, "a hard link to .env"},
		{"grep -r KEY src", Allow, ""},
		{"grep KEY src/a.go", Allow, ""},
		{"grep KEY .", Allow, ""}, // not recursive: a folder is skipped
		// Words only known at run time could name .env.
		{"cat $F", Ask, "cat gets $F only when it runs"},
		{"cat $(ls)", Ask, "only when it runs"},
		{"cat ~/x", Ask, "only when it runs"},
		{"ls $HOME", Allow, ""}, // ls reads no file content
		{"ls -la .env", Allow, ""},
		// Files that are not protected are fine.
		{"cat src/a.go docs/readme.md", Allow, ""},
		{"git log --oneline -5", Allow, ""},
		// Paths the kernel resolves through /proc, /dev/fd and links.
		{"cat /proc/self/cwd/.env", Ask, "it reads .env,"},
		{"cat /proc/thread-self/cwd/.env", Ask, "it reads .env,"},
		{"cat /dev/fd/../cwd/.env", Ask, "it reads .env,"},
		{"cat /proc/self/root" + ws + "/.env", Ask, "it reads .env,"},
		{"cat /proc/1/cwd/.env", Ask, "cat gets /proc/1/cwd/.env only when it runs"},
		{"cat /proc/self/fd/3/../.env", Ask, "only when it runs"},
		{"cat src-link/../.env", Ask, "it reads deep/.env,"},
		// Options whose value is a file read, in programs that read no
		// other file content.
		{"file -f .env", Ask, "it reads .env,"},
		{"file -f.env", Ask, "it reads .env,"},
		{"du --files0-from=.env", Ask, "it reads .env,"},
		{"du --files0-from .env", Ask, "it reads .env,"},
		// Git history holds files no word names.
		{"git show HEAD", Ask, "git prints file content from git history"},
		{"git diff HEAD~1 src/a.go", Ask, "git history"},
		{"git diff 4b825dc642cb6eb9a060e54bf8d69288fbee4904 HEAD", Ask, "git history"},
		{"git log -p", Ask, "git history"},
		{"git log -np1", Ask, "git history"},
		{"git log --patch -1", Ask, "git history"},
		{"git cat-file -p HEAD:x", Ask, "git history"},
		{"git cat-file --batch-all-objects --batch", Ask, "git history"},
		// Options that write are not covered by a read-only rule.
		{"git diff --output=out.txt", NoMatch, `the rule ShellAction bash "git diff *" allows the command but not how it writes files: the rule does not name --output`},
		{"git log --output out.txt", NoMatch, "does not name --output"},
		{"git show --outp=out.txt", NoMatch, "does not name --outp"},
		{"git log --output-indicator-new=x", Allow, ""},
		{"cat a > b", NoMatch, "does not name >"},
		{"ls > listing.txt", NoMatch, "does not name >"},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			v := m.Evaluate(shellCall(tt.command))
			if v.Decision != tt.want || !strings.Contains(v.Reason, tt.reason) || (tt.reason == "" && v.Reason != "") || v.Protected {
				t.Fatalf("Evaluate(%q) = %+v, want %v with reason containing %q", tt.command, v, tt.want, tt.reason)
			}
		})
	}
}

// A shell command's relative paths lead from the folder it runs in, the
// kernel's current folder (%cd, os.chdir), not from the workspace.
func TestShellCommandInAnotherFolder(t *testing.T) {
	m, ws := guardWorkspace(t)
	sub := filepath.Join(ws, "src")
	call := func(cmd string) Call { c := shellCall(cmd); c.Dir = sub; return c }
	for _, tt := range []struct {
		command string
		want    Decision
		reason  string
	}{
		{"cat ../.env", Ask, "it reads .env,"},
		{"cat a.go", Allow, ""},
		{"cat /proc/self/cwd/../.env", Ask, "it reads .env,"},
		{"grep -r KEY ..", Ask, "including .env"},
	} {
		if v := m.Evaluate(call(tt.command)); v.Decision != tt.want || !strings.Contains(v.Reason, tt.reason) {
			t.Errorf("Evaluate(%q in src) = %+v, want %v with %q", tt.command, v, tt.want, tt.reason)
		}
	}
	if v := m.Evaluate(call("cp x ../.freeact/permissions.json")); !v.Protected {
		t.Errorf("a write of ../.freeact/permissions.json from src is not protected: %+v", v)
	}
}

func TestProtectedFiles(t *testing.T) {
	m, ws := guardWorkspace(t)
	conv := m.NewConversation()
	// Rules that would allow every write and every shell command.
	for _, r := range []Rule{
		{Type: TypeFileWrite, ToolName: "*", Path: "**"},
		{Type: TypeFileEdit, ToolName: "*", Path: "**"},
		{Type: TypeShellAction, ToolName: "*", Command: "*"},
		{Type: TypeShellAction, ToolName: "*", Command: "* > *"},
		{Type: TypeShellAction, ToolName: "*", Command: "tee *"},
		{Type: TypeShellAction, ToolName: "*", Command: "cp *"},
		{Type: TypeShellAction, ToolName: "*", Command: "rm *"},
		{Type: TypeShellAction, ToolName: "*", Command: "git diff --output=*"},
	} {
		if err := conv.Add(Session, false, r); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) Call {
		return Call{Type: TypeFileWrite, ToolName: "filesystem_write_text_file", Path: p}
	}
	edit := func(p string) Call {
		return Call{Type: TypeFileEdit, ToolName: "filesystem_edit_text_file", Path: p}
	}
	tests := []struct {
		name   string
		call   Call
		reason string // "" means not protected
	}{
		{"write permissions.json", write(".freeact/permissions.json"), "it changes .freeact/permissions.json: this changes what the agent may do without asking"},
		{"write it by absolute path", write(filepath.Join(ws, ".freeact", "permissions.json")), "it changes .freeact/permissions.json"},
		{"edit agent.json", edit(".freeact/agent.json"), "it changes .freeact/agent.json"},
		{"write freeact 0.11's permissions.toml", write(".freeact/permissions.toml"), "it changes .freeact/permissions.toml"},
		{"shell into permissions.toml", shellCall("echo 'allow = []' > .freeact/permissions.toml"), "it writes .freeact/permissions.toml"},
		{"edit sandbox settings", edit(".freeact/sandbox-config.json"), "it changes .freeact/sandbox-config.json"},
		{"write sandbox_config file", write("settings/my-srt.json"), "settings/my-srt.json"},
		{"write a hard link to permissions.json", write("perm-copy.json"), "it changes .freeact/permissions.json"},
		{"write another file", write("src/b.go"), ""},
		{"shell redirect", shellCall("echo '{}' > .freeact/permissions.json"), "it writes .freeact/permissions.json: this changes"},
		{"shell append", shellCall("echo x >> .freeact/agent.json"), "it writes .freeact/agent.json"},
		{"tee", shellCall("tee .freeact/agent.json"), "it writes (tee) .freeact/agent.json"},
		{"tee into a hard link", shellCall("tee perm-copy.json"), "which may be .freeact/permissions.json"},
		{"git --output", shellCall("git diff --output=.freeact/permissions.json"), "it writes (--output) .freeact/permissions.json"},
		{"cp into the folder", shellCall("cp /tmp/permissions.json .freeact/"), ".freeact/permissions.json"},
		{"cp a folder over it", shellCall("cp -r /tmp/x/.freeact ."), "which may be .freeact/permissions.json"},
		{"cp into the workspace", shellCall("cp -r /tmp/src ."), ""},
		{"rm -r the folder", shellCall("rm -rf .freeact"), "which may be .freeact/permissions.json"},
		{"rm -r the workspace", shellCall("rm -rf " + ws), "which may be .freeact/permissions.json"},
		{"rm -r above it", shellCall("rm -rf " + filepath.Dir(ws)), "which may be .freeact/permissions.json"},
		{"same name elsewhere (cwd unknown)", shellCall("tee agent.json"), "which may be .freeact/agent.json"},
		{"dynamic target", shellCall("cat a > $OUT"), "a file only known when it runs"},
		{"bash -c", shellCall("bash -c 'echo x > .freeact/permissions.json'"), ".freeact/permissions.json"},
		{"other file", shellCall("echo x > notes.txt"), ""},
		{"reading is fine", shellCall("cat .freeact/permissions.json"), ""},
		// Writes whose targets are named inside an archive, a patch or
		// commits: never allowed by a rule.
		{"git checkout a file", shellCall("git checkout HEAD~1 -- .freeact/permissions.json"), "git writes files named only inside what it reads"},
		{"git restore", shellCall("git restore --source=HEAD~1 ."), "git writes files named only"},
		{"git reset --hard", shellCall("git reset --hard HEAD~1"), "git writes files named only"},
		{"git stash pop", shellCall("git stash pop"), "git writes files named only"},
		{"git apply", shellCall("git apply x.patch"), "git writes files named only"},
		{"git am", shellCall("git am x.mbox"), "git writes files named only"},
		{"git merge", shellCall("git merge other"), "git writes files named only"},
		{"git cherry-pick", shellCall("git cherry-pick abc"), "git writes files named only"},
		{"git switch -f", shellCall("git switch -f other"), "git writes files named only"},
		{"git -C . checkout", shellCall("git -C . checkout other"), "git writes files named only"},
		{"patch", shellCall("patch -p1 < x.patch"), "patch writes files named only"},
		{"tar x", shellCall("tar xf x.tar"), "tar writes files named only"},
		{"tar -x", shellCall("tar -C . -xzf x.tgz"), "tar writes files named only"},
		{"tar --extract", shellCall("tar --extract --file=x.tar"), "tar writes files named only"},
		{"unzip -o", shellCall("unzip -o x.zip"), "unzip writes files named only"},
		{"cp through /proc/self/cwd", shellCall("cp x /proc/self/cwd/.freeact/permissions.json"), "it writes (cp) .freeact/permissions.json"},
		{"cp through /dev/fd", shellCall("cp x /dev/fd/../cwd/.freeact/permissions.json"), ".freeact/permissions.json"},
		{"cp through another process", shellCall("cp x /proc/1/cwd/.freeact/permissions.json"), "a file only known when it runs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := conv.Evaluate(tt.call)
			if tt.reason == "" {
				if v.Protected || v.Decision != Allow {
					t.Fatalf("Evaluate(%+v) = %+v, want Allow", tt.call, v)
				}
				return
			}
			if !v.Protected || v.Decision != Ask || !strings.Contains(v.Reason, tt.reason) {
				t.Fatalf("Evaluate(%+v) = %+v, want a protected ask with reason containing %q", tt.call, v, tt.reason)
			}
		})
	}
}

func TestHardLinkToAskedFile(t *testing.T) {
	m, _ := guardWorkspace(t)
	v := m.Evaluate(readCall("docs/notes.txt"))
	if v.Decision != Ask || !strings.Contains(v.Reason, "docs/notes.txt is a hard link to .env, which the rule FileRead filesystem_* **/.env asks for") {
		t.Fatalf("reading a hard link to .env: %+v", v)
	}
	if v := m.Evaluate(readCall("docs/readme.md")); v.Decision != Allow {
		t.Fatalf("reading a plain file: %+v", v)
	}
}

func TestWalkBudget(t *testing.T) {
	m, ws := openTemp(t)
	m.walkLimit = 50
	// More entries than one check may visit: the search is asked.
	for i := range m.walkLimit {
		if err := os.WriteFile(filepath.Join(ws, "f"+strconv.Itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v := m.Evaluate(shellCall("grep -r KEY ."))
	if v.Decision != Ask || !strings.Contains(v.Reason, "grep reads everything below ., more than 50 entries: too many to check") {
		t.Fatalf("%+v", v)
	}
	if v := m.Evaluate(shellCall("grep KEY f1")); v.Decision != Allow {
		t.Fatalf("%+v", v)
	}
}

// BenchmarkEvaluate measures the checks a shell command gets: a plain one,
// and a recursive search walking a workspace of 5,000 files.
func BenchmarkEvaluate(b *testing.B) {
	ws := b.TempDir()
	m, err := Open(ws)
	if err != nil {
		b.Fatal(err)
	}
	for d := range 50 {
		dir := filepath.Join(ws, "src", "d"+strconv.Itoa(d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 100 {
			if err := os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(f)+".go"), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, cmd := range []string{"cat src/d1/f1.go", "git log --oneline -5", "grep -r KEY src"} {
		b.Run(cmd, func(b *testing.B) {
			for b.Loop() {
				if d := m.Check(shellCall(cmd)); d != Allow {
					b.Fatalf("%s: %v", cmd, d)
				}
			}
		})
	}
}
