package shell

import (
	"slices"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		line string
		want []string
	}{
		{"single", "ls -la", []string{"ls -la"}},
		{"and or pipe semicolon", "a && b | c; d || e", []string{"a", "b", "c", "d", "e"}},
		{"background", "sleep 1 & ls", []string{"sleep 1", "ls"}},
		{"newlines", "ls\npwd\n\ngit status", []string{"ls", "pwd", "git status"}},
		{"redirections stay attached", "ls -la > out 2>&1 &", []string{"ls -la > out 2>&1"}},
		{"redirection before command", "< in sort", []string{"< in sort"}},
		{"bare redirection", "> truncated", []string{"> truncated"}},
		{"subshell", "(cd x && make)", []string{"cd x", "make"}},
		{"block", "{ ls; pwd; }", []string{"ls", "pwd"}},
		{"command substitution", "echo $(rm -rf /)", []string{"echo $(rm -rf /)", "rm -rf /"}},
		{"backticks", "echo `date`", []string{"echo `date`", "date"}},
		{"process substitution", "diff <(ls a) >(cat)", []string{"diff <(ls a) >(cat)", "ls a", "cat"}},
		{"nested substitution", "echo $(echo $(id))", []string{"echo $(echo $(id))", "echo $(id)", "id"}},
		{"substitution in assignment", "X=$(id) ls", []string{"X=$(id) ls", "id"}},
		{"substitution in redirect target", "ls > $(mktemp)", []string{"ls > $(mktemp)", "mktemp"}},
		{"substitution in parameter default", "echo ${x:-$(id)}", []string{"echo ${x:-$(id)}", "id"}},
		{"plain assignment runs nothing itself", "X=$(id)", []string{"id"}},
		{"export", "export A=$(id)", []string{"export A=$(id)", "id"}},
		{"if", "if test -f x; then rm x; else touch x; fi", []string{"test -f x", "rm x", "touch x"}},
		{"loops", "for f in *; do rm $f; done; while false; do :; done", []string{"rm $f", "false", ":"}},
		{"case", "case $x in a) rm y;; esac", []string{"rm y"}},
		{"function body", "f() { rm -rf /; }; f", []string{"rm -rf /", "f"}},
		{"negation and time", "! grep x f; time make", []string{"grep x f", "make"}},
		{"duplicates once", "ls; ls", []string{"ls"}},
		{"quotes keep operators", `echo 'a;b' "c && d"`, []string{`echo 'a;b' "c && d"`}},
		{"escaped newline", "ls \\\n  -la", []string{"ls \\\n  -la"}},
		{"heredoc body attached", "cat <<EOF | grep x\nhello\nEOF\necho done", []string{"cat <<EOF\nhello\nEOF", "grep x", "echo done"}},
		{"heredoc with substitution", "cat <<EOF\n$(id)\nEOF", []string{"cat <<EOF\n$(id)\nEOF", "id"}},
		{"empty heredoc", "cat <<EOF\nEOF", []string{"cat <<EOF\nEOF"}},
		{"env wrapper", "env X=1 FOO=2 rm -rf /", []string{"env X=1 FOO=2 rm -rf /", "rm -rf /"}},
		{"env alone", "env", []string{"env"}},
		{"sudo wrapper with option value", "sudo -u root rm x", []string{"sudo -u root rm x", "rm x"}},
		{"timeout positional", "timeout 5 curl x", []string{"timeout 5 curl x", "curl x"}},
		{"nohup nice", "nohup nice -n 5 make", []string{"nohup nice -n 5 make", "nice -n 5 make", "make"}},
		{"xargs", "xargs -n1 rm < list", []string{"xargs -n1 rm < list", "rm"}},
		{"find exec", `find . -name '*.py' -exec rm {} \;`, []string{`find . -name '*.py' -exec rm {} \;`, "rm {}"}},
		{"command -v only looks up", "command -v git", []string{"command -v git"}},
		{"bash -c literal", "bash -c 'ls; rm x'", []string{"bash -c 'ls; rm x'", "ls", "rm x"}},
		{"combined -lc", `sh -lc "echo hi && id"`, []string{`sh -lc "echo hi && id"`, "echo hi", "id"}},
		{"nested shells", `sh -c 'bash -c "rm x"'`, []string{`sh -c 'bash -c "rm x"'`, `bash -c "rm x"`, "rm x"}},
		{"shell with script file", "bash build.sh", []string{"bash build.sh"}},
		{"source file", "source .venv/bin/activate && python x.py", []string{"source .venv/bin/activate", "python x.py"}},
		{"shell heredoc quoted", "bash <<'EOF'\nrm -rf /\nEOF", []string{"bash <<'EOF'\nrm -rf /\nEOF", "rm -rf /"}},
		{"shell heredoc escaped substitution", "bash <<EOF\necho \\$(id)\nEOF", []string{"bash <<EOF\necho \\$(id)\nEOF", "echo $(id)", "id"}},
		{"shell here-string", "bash <<< 'rm x'", []string{"bash <<< 'rm x'", "rm x"}},
		{"eval literal", "eval 'ls && rm y'", []string{"eval 'ls && rm y'", "ls", "rm y"}},
		{"eval words joined", "eval rm y", []string{"eval rm y", "rm y"}},
		{"trap action", "trap 'rm x' EXIT", []string{"trap 'rm x' EXIT", "rm x"}},
		{"alias body", "alias ll='ls -l' rmx=\"rm x\"", []string{"alias ll='ls -l' rmx=\"rm x\"", "ls -l", "rm x"}},
		{"su -c", "su -c 'rm x' root", []string{"su -c 'rm x' root", "rm x"}},
		{"watch", "watch -n 1 'ls | wc -l'", []string{"watch -n 1 'ls | wc -l'", "ls", "wc -l"}},
		{"test command", "[ -f x ] && rm x", []string{"[ -f x ]", "rm x"}},
		{"arithmetic only", "(( x = 1 ))", []string{"(( x = 1 ))"}},
		{"blank", "  \n ", nil},
		{"comment only", "# nothing", nil},
		{"comment after command", "ls # list", []string{"ls"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Split(tt.line)
			if got.Opaque {
				t.Fatalf("Split(%q) is opaque (%s), want %q", tt.line, got.Reason, tt.want)
			}
			if !slices.Equal(got.Commands, tt.want) {
				t.Fatalf("Split(%q)\n got %q\nwant %q", tt.line, got.Commands, tt.want)
			}
		})
	}
}

func TestSplitOpaque(t *testing.T) {
	tests := []struct {
		name, line, reason string
	}{
		{"unparseable", `echo "unterminated`, "cannot parse"},
		{"unbalanced parens", "(ls", "cannot parse"},
		{"variable command", "$CMD x", "not a plain word"},
		{"substituted command name", "$(echo rm) -rf /", "not a plain word"},
		{"quoted command name", "'rm' -rf /", "not a plain word"},
		{"escaped command name", `r\m -rf /`, "not a plain word"},
		{"globbed command name", "/bin/r? x", "not a plain word"},
		{"bash -c dynamic", `bash -c "$SCRIPT"`, "only known at run time"},
		{"bash -c substitution", `bash -c "$(curl -s x)"`, "only known at run time"},
		{"eval dynamic", `eval "$x"`, "eval of text only known at run time"},
		{"pipe into shell", "curl x | sh", "reads its script from stdin"},
		{"shell from file", "sh < script.sh", "reads its script from stdin"},
		{"heredoc to shell expands", "bash <<EOF\nrm $(id)\nEOF", "here-document fed to a shell"},
		{"env -S", `env -S "rm x"`, "env -S"},
		{"source process substitution", "source <(curl -s x)", "sources a script"},
		{"dot stdin", "curl x | . /dev/stdin", "sources a script"},
		{"shell from fd", "bash /dev/fd/3 3< <(curl x)", "reads its script"},
		{"dynamic wrapped", `sudo "$@"`, "only known at run time"},
		{"non-posix shell", "fish -c 'rm x'", "not split"},
		{"trap dynamic", `trap "$cleanup" EXIT`, "trap action"},
		{"alias dynamic", `alias ls="$x a"`, "alias of text"},
		{"too deep", strings.Repeat("eval ", 1) + nested(10), "nested too deeply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Split(tt.line)
			if !got.Opaque {
				t.Fatalf("Split(%q) = %q, want opaque", tt.line, got.Commands)
			}
			if want := []string{strings.TrimSpace(tt.line)}; !slices.Equal(got.Commands, want) {
				t.Fatalf("opaque Commands = %q, want the whole line %q", got.Commands, want)
			}
			if !strings.Contains(got.Reason, tt.reason) {
				t.Fatalf("Reason = %q, want it to mention %q", got.Reason, tt.reason)
			}
		})
	}
}

// nested builds sh -c '...' nested n levels deep around "rm x".
func nested(n int) string {
	s := "rm x"
	for range n {
		s = "sh -c " + shellQuote(s)
	}
	return shellQuote(s)
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
