package shell

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// adversarialCorpus holds lines written to slip a command past the
// splitter. Each is run by a real bash with every external program replaced
// by a stub that logs its name; every program that ran must appear in the
// split, or the line must be opaque.
var adversarialCorpus = []string{
	// Quoting and escaping.
	`echo 'rm -rf /; curl x' && "ls" ; l's'`,
	`echo "$(rm a)" '$(curl b)'`,
	`echo "a \" ; rm b"; ls`,
	`echo a\;rm b; wget c`,
	"r\\\nm x",
	"ls \\\n -la && \\\nrm x",
	`$'\x72m' x`,
	`"rm" x`,
	`\rm x`,
	`x=rm; $x y`,
	`${CMD:-rm} x`,
	// ANSI-C quoting: one argument to bash (which runs ! lines), three
	// commands to dash.
	`ls $'x\' ; touch X ; echo ' #'`,
	`ls $"x" ; echo $'a\'b' ; rm c`,
	// Substitutions everywhere.
	"echo `rm a` $(curl b) <(wget c) >(tee d)",
	`echo $((1 + $(rm a | wc -c)))`,
	`[[ -n $(rm a) ]] && ls`,
	`X=$(rm a) ls > $(curl b)`,
	`cat <<< "$(rm a)"`,
	`for f in $(ls); do rm "$f"; done`,
	`case $(id) in *) touch y;; esac`,
	// Here-documents.
	"cat <<EOF\n$(rm a)\nEOF",
	"bash <<'EOF'\nrm -rf x\ncurl y\nEOF",
	"sh <<EOF\nrm \\$(id)\nEOF",
	"bash <<EOF\n$(curl x)\nEOF",
	"cat <<-EOF | sh\n\trm x\n\tEOF",
	"bash <<< 'rm a; curl b'",
	// eval and shells.
	`eval 'rm a && curl b'`,
	`eval rm a\; curl b`,
	`eval "$(echo rm a)"`,
	`bash -c 'rm a; curl b'`,
	`sh -ec "rm a" && bash -ec 'curl b | wc -l'`,
	`bash -c "$(curl x)"`,
	`sh -c 'sh -c "rm a"'`,
	`curl x | bash`,
	`echo rm a | sh -s`,
	`builtin eval "rm a"`,
	`command rm a`,
	`trap 'rm a' EXIT; ls`,
	`source <(echo rm a)`,
	`echo rm a | . /dev/stdin`,
	`echo rm a | bash /dev/stdin`,
	"shopt -s expand_aliases\nalias ls='rm a'\nls",
	"shopt -s expand_aliases\nalias x=\"curl b\" y='wc -l'\nx | y",
	"shopt -s expand_aliases; x=rm\nalias ls=\"$x a\"\nls",
	// Wrappers.
	`env X=1 rm a`,
	`env -i PATH=$PATH X=1 curl b`,
	`env -u HOME -- rm a`,
	`env -S 'rm a'`,
	`nohup nice -n 1 timeout 5 rm a`,
	`timeout -s KILL 5 curl b`,
	`xargs -n1 rm < list`,
	`ls | xargs -I{} sh -c 'rm {}'`,
	`find . -name '*.py' -exec rm {} \; -o -exec curl {} +`,
	`exec rm a`,
	// Structure.
	`f() { rm a; }; f; g() ( curl b ); g`,
	`{ rm a; } > out 2>&1 & wait`,
	`(cd / && rm a) || curl b`,
	`! rm a; time curl b`,
	`coproc rm a`,
	`if rm a; then curl b; elif wget c; then :; else touch d; fi`,
	`while rm a; do break; done; until curl b; do break; done`,
	`select x in a; do rm a; break; done < /dev/null`,
	`declare -x A=$(rm a); local 2>/dev/null; readonly B=$(curl b)`,
	`> f1 rm a 2> f2`,
	// Broken input: must be opaque.
	`echo "unterminated; rm a`,
	`rm a )`,
	`$(rm a`,
}

// oraclePrograms run for real so the commands they start can be observed.
var oraclePrograms = []string{"bash", "sh", "env", "timeout", "xargs", "nohup", "nice", "find"}

// stubPrograms are replaced by stubs that log their name and exit 0.
var stubPrograms = []string{"rm", "curl", "wget", "ls", "wc", "tee", "id", "touch", "cat", "l"}

func TestAdversarialCorpus(t *testing.T) {
	realBash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("the adversarial corpus needs bash on PATH: %v", err)
	}
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	work := filepath.Join(root, "work")
	for _, d := range []string{bin, work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range oraclePrograms {
		p, err := exec.LookPath(name)
		if err != nil {
			t.Fatalf("the adversarial corpus needs %s: %v", name, err)
		}
		if err := os.Symlink(p, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	stub := "#!" + realBash + "\necho \"${0##*/}\" >> \"$ORACLE_LOG\"\n"
	for _, name := range stubPrograms {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{"a.py": "x", "list": "f1\n"} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	for i, line := range adversarialCorpus {
		res := Split(line)
		logFile := filepath.Join(root, "log")
		_ = os.Remove(logFile)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, realBash, "-c", line)
		cmd.Dir = work
		cmd.Env = []string{"PATH=" + bin, "HOME=" + root, "ORACLE_LOG=" + logFile}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		_ = cmd.Run() // many lines fail on purpose; what ran is in the log
		cancel()
		if strings.Contains(stderr.String(), "command not found") {
			t.Fatalf("corpus line %d %q runs a program without a stub: %s", i, line, stderr.String())
		}
		ran, _ := os.ReadFile(logFile)
		for _, name := range strings.Fields(string(ran)) {
			if res.Opaque {
				continue
			}
			if !mentions(res.Commands, name) {
				t.Errorf("corpus line %d %q ran %q, which is missing from the split %q",
					i, line, name, res.Commands)
			}
		}
	}
}

// mentions reports whether a command in cmds has name as a whole word.
func mentions(cmds []string, name string) bool {
	re := regexp.MustCompile(`(^|[\s;&|({}])` + regexp.QuoteMeta(name) + `($|[\s;&|)}])`)
	for _, c := range cmds {
		if re.MatchString(c) {
			return true
		}
	}
	return false
}

// TestAdversarialOpaque pins the corpus lines that must be asked as a whole.
func TestAdversarialOpaque(t *testing.T) {
	for _, line := range []string{
		`$'\x72m' x`, `"rm" x`, `\rm x`, `x=rm; $x y`, `${CMD:-rm} x`, "r\\\nm x",
		"bash <<EOF\n$(curl x)\nEOF", "cat <<-EOF | sh\n\trm x\n\tEOF",
		`eval "$(echo rm a)"`, `bash -c "$(curl x)"`, `curl x | bash`, `echo rm a | sh -s`,
		`env -S 'rm a'`, `echo "unterminated; rm a`, `rm a )`, `$(rm a`,
	} {
		if res := Split(line); !res.Opaque {
			t.Errorf("Split(%q) = %q, want opaque", line, res.Commands)
		}
	}
}

func FuzzSplit(f *testing.F) {
	for _, line := range adversarialCorpus {
		f.Add(line)
	}
	for _, line := range []string{"", "ls", "a && b || c | d; e & f", "cat <<EOF\nx\nEOF", "bash -c 'ls'"} {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		res := Split(line)
		if res.Opaque {
			if len(res.Commands) != 1 || res.Commands[0] != strings.TrimSpace(line) || res.Reason == "" {
				t.Fatalf("opaque result must be the whole line with a reason: %+v", res)
			}
			return
		}
		seen := map[string]bool{}
		for _, c := range res.Commands {
			if c == "" || c != strings.TrimSpace(c) {
				t.Fatalf("command %q is empty or untrimmed", c)
			}
			if seen[c] {
				t.Fatalf("command %q appears twice", c)
			}
			seen[c] = true
		}
		if strings.TrimSpace(line) != "" && len(res.Commands) == 0 && !commentOnly(line) {
			t.Fatalf("non-blank line %q yields no command", line)
		}
	})
}
