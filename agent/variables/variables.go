// Package variables owns what the agent knows of a kernel's variables
// without running a cell: the Inspector an executor may implement, the
// @name mentions of a prompt, and the compact description of a variable
// the model gets in a note.
package variables

import (
	"context"
	"errors"
	"fmt"
	"github.com/freeact/desktop/agent/history"
	"log/slog"
	"strings"
	"time"
	"unicode"

	"github.com/freeact/desktop/kernel"
)

// Inspector reads an executor's variables without running a cell and
// without asking anything (*kernel.Kernel implements it, and so do the
// fake kernels of agent/agenttest).
type Inspector interface {
	Variables(ctx context.Context) (*kernel.Namespace, error)
	Describe(ctx context.Context, name string) (*kernel.VariableDetail, error)
}

// ErrNoInspector: the executor cannot list its variables.
var ErrNoInspector = errors.New("this kernel cannot list its variables")

// maxMentions bounds the variables one prompt brings along.
const maxMentions = 8

// mentionWait bounds how long a prompt waits to describe its variables.
const mentionWait = 5 * time.Second

// Mentions returns the variable names a prompt mentions as @name, in
// order, each once: an @ at the start or after a space or bracket,
// followed by a Python identifier that ends the word (so @data.csv or
// @src/main.py, which name files, are not mentions).
func Mentions(text string) []string {
	var out []string
	seen := map[string]bool{}
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		if rs[i] != '@' || (i > 0 && !unicode.IsSpace(rs[i-1]) && !strings.ContainsRune("([{,;", rs[i-1])) {
			continue
		}
		j := i + 1
		for j < len(rs) && (rs[j] == '_' || unicode.IsLetter(rs[j]) || (j > i+1 && unicode.IsDigit(rs[j]))) {
			j++
		}
		if j == i+1 {
			continue
		}
		if j < len(rs) {
			next := rs[j]
			endsWord := unicode.IsSpace(next) || strings.ContainsRune(",;:!?)]}'\"", next) ||
				(next == '.' && (j+1 == len(rs) || unicode.IsSpace(rs[j+1])))
			if !endsWord {
				continue
			}
		}
		name := string(rs[i+1 : j])
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
		i = j - 1
	}
	if len(out) > maxMentions {
		out = out[:maxMentions]
	}
	return out
}

// Notes describes the variables a prompt mentions (@name) for the
// model; a name the kernel does not hold is left alone (it may name a
// file).
func Notes(ctx context.Context, in Inspector, log *slog.Logger, prompt string) []string {
	names := Mentions(prompt)
	if len(names) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, mentionWait)
	defer cancel()
	var notes []string
	for _, name := range names {
		d, err := in.Describe(ctx, name)
		if err != nil {
			if !errors.Is(err, kernel.ErrNoVariable) {
				log.Warn("describe a mentioned variable", "name", name, "err", err)
			}
			continue
		}
		notes = append(notes, history.VariableNote(name, DescribeVariable(d)))
	}
	return notes
}

// DescribeVariable is the compact text the model gets about a variable:
// its type, shape or length, size, dtypes and first rows or repr.
func DescribeVariable(d *kernel.VariableDetail) string {
	var b strings.Builder
	b.WriteString(d.Type)
	if len(d.Shape) > 0 {
		dims := make([]string, len(d.Shape))
		for i, n := range d.Shape {
			dims[i] = fmt.Sprint(n)
		}
		fmt.Fprintf(&b, ", shape (%s)", strings.Join(dims, ", "))
	} else if d.Len != nil {
		fmt.Fprintf(&b, ", length %d", *d.Len)
	}
	if d.Dtype != "" {
		b.WriteString(", dtype " + d.Dtype)
	}
	if d.Bytes >= 0 {
		b.WriteString(", " + FormatBytes(d.Bytes))
	}
	b.WriteByte('\n')
	if len(d.Columns) > 0 {
		cols := make([]string, len(d.Columns))
		for i, c := range d.Columns {
			cols[i] = c.Name + " (" + c.Dtype + ")"
		}
		b.WriteString("columns: " + strings.Join(cols, ", ") + "\n")
	}
	if d.Head != "" {
		b.WriteString("first rows:\n" + d.Head + "\n")
	} else if d.Repr != "" {
		b.WriteString("value: " + d.Repr + "\n")
	}
	return b.String()
}

// FormatBytes writes a size the way people read it: 512 B, 1.5 kB, 2.0 GB.
func FormatBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTPE"[exp])
}
