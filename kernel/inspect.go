package kernel

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
)

//go:embed hooks/freeact_inspect.py
var inspectSource string

// Variable is one user variable of a kernel, as the variable inspector
// lists it.
type Variable struct {
	Name string `json:"name"`
	// Type is the class with its top-level package: "int", "list",
	// "numpy.ndarray", "pandas.DataFrame".
	Type string `json:"type"`
	// Shape is set for arrays, frames and tensors.
	Shape []int `json:"shape,omitempty"`
	// Len is set for strings and built-in containers.
	Len *int `json:"len,omitempty"`
	// Bytes is the size in memory: the data of arrays, frames and
	// tensors, the object itself for anything else (a list's references,
	// not its items); -1 when it cannot be told.
	Bytes int64 `json:"bytes"`
	// Repr is a short repr, at most 60 characters (2,000 from Describe);
	// empty when the listing's time budget for reprs ran out first.
	Repr string `json:"repr,omitempty"`
}

// Namespace lists the user variables of a kernel: what cells defined, not
// modules, not what IPython itself puts there, not names starting with an
// underscore, and not functions or classes imported from elsewhere.
type Namespace struct {
	// Variables are sorted by name, at most 5,000 of them.
	Variables []Variable `json:"variables"`
	// Total counts all user variables (more than len(Variables) when the
	// listing was cut).
	Total int `json:"total"`
	// ReprCut is set when the time budget for reprs (20 ms of processor
	// time, 40 ms on the clock) ran out: the
	// variables after the last one with a Repr have none.
	ReprCut bool `json:"repr_cut"`
}

// VariableDetail describes one variable more fully.
type VariableDetail struct {
	Variable
	// Dtype of an array or a Series.
	Dtype string `json:"dtype,omitempty"`
	// Columns of a DataFrame (the first 50) with their dtypes.
	Columns []Column `json:"columns,omitempty"`
	// Head is the first rows of a DataFrame or Series as text.
	Head string `json:"head,omitempty"`
}

// Column is a DataFrame column.
type Column struct {
	Name  string `json:"name"`
	Dtype string `json:"dtype"`
}

// ErrNoVariable is returned (wrapped) by Describe for a name the kernel's
// namespace does not hold.
var ErrNoVariable = errors.New("no such variable in the kernel")

var identifierRE = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_]*$`)

// Variables lists the kernel's user variables. It reads the namespace
// without running a cell: a silent execution that enters no history, does
// not count as an execution and asks nothing of the Host. It takes a few
// milliseconds whatever the variables hold (sizes come from attributes,
// never from the data; reprs are made from slices under a time budget).
// While a cell runs, the kernel answers after it.
func (k *Kernel) Variables(ctx context.Context) (*Namespace, error) {
	var ns Namespace
	if err := k.inspect(ctx, "variables()", &ns); err != nil {
		return nil, fmt.Errorf("list variables: %w", err)
	}
	return &ns, nil
}

// Describe tells more about the variable name, in the same silent way as
// Variables: a DataFrame's columns, dtypes and first rows, an array's
// dtype, a longer repr.
func (k *Kernel) Describe(ctx context.Context, name string) (*VariableDetail, error) {
	if !identifierRE.MatchString(name) {
		return nil, fmt.Errorf("describe %q: not a Python variable name", name)
	}
	lit, _ := json.Marshal(name) // a JSON string is a Python string literal
	var d *VariableDetail
	if err := k.inspect(ctx, "describe("+string(lit)+")", &d); err != nil {
		return nil, fmt.Errorf("describe %s: %w", name, err)
	}
	if d == nil {
		return nil, fmt.Errorf("describe %s: %w", name, ErrNoVariable)
	}
	return d, nil
}

// inspect evaluates call of the freeact_inspect module as a user
// expression and decodes its JSON into out. The module is installed once
// per kernel process.
func (k *Kernel) inspect(ctx context.Context, call string, out any) error {
	k.mu.Lock()
	c, dead, closed, installed := k.c, k.dead, k.closed, k.inspecting == k.c
	k.mu.Unlock()
	switch {
	case closed:
		return errors.New("the kernel is closed")
	case dead != nil:
		return dead
	}
	code := ""
	if !installed {
		code = moduleCode("freeact_inspect", inspectSource)
	}
	rep, err := c.silent(ctx, code, map[string]any{"r": "__import__('freeact_inspect')." + call})
	if err != nil {
		return err
	}
	if !installed {
		k.mu.Lock()
		k.inspecting = c
		k.mu.Unlock()
	}
	r, ok := rep.UserExpressions["r"]
	switch {
	case !ok:
		return errors.New("the kernel did not evaluate the inspection")
	case r.Status != "ok":
		return fmt.Errorf("in the kernel: %s: %s", r.EName, r.EValue)
	}
	var text string
	if err := json.Unmarshal(r.Data["text/plain"], &text); err != nil {
		return fmt.Errorf("unexpected reply from the kernel: %w", err)
	}
	if err := json.Unmarshal([]byte(text), out); err != nil {
		return fmt.Errorf("unexpected reply from the kernel: %w", err)
	}
	return nil
}
