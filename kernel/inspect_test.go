package kernel

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func inspectCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func byName(ns *Namespace) map[string]Variable {
	m := map[string]Variable{}
	for _, v := range ns.Variables {
		m[v.Name] = v
	}
	return m
}

func TestVariablesListsUserVariables(t *testing.T) {
	for name, py := range pythons(t) {
		t.Run(name, func(t *testing.T) {
			k := startKernel(t, sharedServer(t, py), KernelOptions{Host: &testHost{}})
			run(t, k, `import os, json
from math import sqrt
n = 42
s = "hello"
long_text = "ab" * 5_000_000
data = list(range(1000))
cfg = {"a": 1, "b": [1, 2, 3]}
blob = b"\x00" * 3_000_000
_private = 1
def helper(x):
    return x
class Point:
    pass
p = Point()
class Loud:
    def __repr__(self):
        raise RuntimeError("no repr for you")
loud = Loud()
`)
			ns, err := k.Variables(inspectCtx(t))
			if err != nil {
				t.Fatal(err)
			}
			got := byName(ns)
			for _, hidden := range []string{"os", "json", "sqrt", "_private", "In", "Out", "get_ipython", "exit", "quit"} {
				if _, ok := got[hidden]; ok {
					t.Errorf("%s is listed; modules, imported functions, private and IPython names are not user variables", hidden)
				}
			}
			want := map[string]struct {
				typ  string
				n    int // len, -1 for none
				repr string
			}{
				"n":         {"int", -1, "42"},
				"s":         {"str", 5, "'hello'"},
				"long_text": {"str", 10_000_000, "'abab"},
				"data":      {"list", 1000, "[0, 1, 2, 3, 4, 5, ...]"},
				"cfg":       {"dict", 2, "{'a': 1, 'b': [1, 2, 3]}"},
				"blob":      {"bytes", 3_000_000, `b'\x00\x00`},
				"helper":    {"function", -1, "<function helper"},
				"Point":     {"type", -1, "<class '__main__.Point'>"},
				"p":         {"Point", -1, "<__main__.Point object"},
				"loud":      {"Loud", -1, "<Loud instance at 0x"}, // reprlib's answer to a failing __repr__
			}
			for name, w := range want {
				v, ok := got[name]
				if !ok {
					t.Errorf("%s is not listed: %+v", name, ns.Variables)
					continue
				}
				if v.Type != w.typ {
					t.Errorf("%s: type %q, want %q", name, v.Type, w.typ)
				}
				if (w.n < 0) != (v.Len == nil) || (v.Len != nil && *v.Len != w.n) {
					t.Errorf("%s: len %v, want %d", name, v.Len, w.n)
				}
				if !strings.HasPrefix(v.Repr, w.repr) {
					t.Errorf("%s: repr %q, want it to start with %q", name, v.Repr, w.repr)
				}
				if len([]rune(v.Repr)) > 60 {
					t.Errorf("%s: repr of %d characters, want at most 60", name, len([]rune(v.Repr)))
				}
				if v.Bytes <= 0 {
					t.Errorf("%s: size %d", name, v.Bytes)
				}
			}
			if got["long_text"].Bytes < 10_000_000 {
				t.Errorf("long_text: size %d, want at least its 10 MB", got["long_text"].Bytes)
			}
			if ns.Total != len(ns.Variables) || ns.ReprCut {
				t.Errorf("total %d, listed %d, repr cut %v", ns.Total, len(ns.Variables), ns.ReprCut)
			}
			for i := 1; i < len(ns.Variables); i++ {
				if strings.ToLower(ns.Variables[i-1].Name) > strings.ToLower(ns.Variables[i].Name) {
					t.Errorf("not sorted by name: %s before %s", ns.Variables[i-1].Name, ns.Variables[i].Name)
				}
			}
		})
	}
}

func TestVariablesArraysAndFrames(t *testing.T) {
	k := startKernel(t, sharedServer(t, newPython(t)), KernelOptions{Host: &testHost{}})
	run(t, k, `import numpy as np, pandas as pd
big = np.zeros((2**14, 2**13))  # 1 GiB, never touched
arr = np.arange(12, dtype=np.int32).reshape(3, 4)
x = np.float64(2.5)
lin = np.linspace(-5, 30, 1_000_000)
df = pd.DataFrame({"city": ["Oslo", "Rome", "Lima"] * 1000, "temp": np.linspace(-5, 30, 3000), "n": np.arange(3000)})
temps = df["temp"]
`)
	ns, err := k.Variables(inspectCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	got := byName(ns)
	big := got["big"]
	if big.Type != "numpy.ndarray" || len(big.Shape) != 2 || big.Shape[0] != 1<<14 || big.Bytes != 1<<30 {
		t.Errorf("big: %+v, want a numpy.ndarray of shape (16384, 8192) and 1 GiB", big)
	}
	if !strings.Contains(big.Repr, "...") {
		t.Errorf("big: repr %q should be summarised", big.Repr)
	}
	if a := got["arr"]; a.Bytes != 48 || a.Repr != "[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]" {
		t.Errorf("arr: %+v", a)
	}
	if lin := got["lin"]; lin.Repr != "[-5, -4.999965, ..., 29.999965, 30]" {
		t.Errorf("lin: repr %q, want its edge items to eight digits", lin.Repr)
	}
	if x := got["x"]; x.Type != "numpy.float64" || x.Shape != nil {
		t.Errorf("x: %+v, want a numpy.float64 without a shape", x)
	}
	df := got["df"]
	if df.Type != "pandas.DataFrame" || len(df.Shape) != 2 || df.Shape[0] != 3000 || df.Shape[1] != 3 || df.Repr != "columns: city, temp, n" {
		t.Errorf("df: %+v", df)
	}
	if df.Bytes < 3000*16 {
		t.Errorf("df: size %d, want at least its numeric columns", df.Bytes)
	}
	if s := got["temps"]; s.Type != "pandas.Series" || !strings.HasPrefix(s.Repr, "float64: [-5.0, ") {
		t.Errorf("temps: %+v", s)
	}

	d, err := k.Describe(inspectCtx(t), "df")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Columns) != 3 || d.Columns[0] != (Column{"city", d.Columns[0].Dtype}) || d.Columns[2] != (Column{"n", "int64"}) {
		t.Errorf("columns %+v", d.Columns)
	}
	if !strings.Contains(d.Head, "Oslo") || strings.Count(d.Head, "\n") != 5 {
		t.Errorf("head %q, want the header and five rows", d.Head)
	}
	a, err := k.Describe(inspectCtx(t), "arr")
	if err != nil {
		t.Fatal(err)
	}
	if a.Dtype != "int32" {
		t.Errorf("arr dtype %q", a.Dtype)
	}
}

func TestVariablesIsSilent(t *testing.T) {
	h := &testHost{}
	k := startKernel(t, sharedServer(t, newPython(t)), KernelOptions{Host: h})
	before := run(t, k, "x = 1\nprint(get_ipython().execution_count, len(In))").Text
	for i := 0; i < 3; i++ {
		if _, err := k.Variables(inspectCtx(t)); err != nil {
			t.Fatal(err)
		}
		if _, err := k.Describe(inspectCtx(t), "x"); err != nil {
			t.Fatal(err)
		}
	}
	after := run(t, k, "print(get_ipython().execution_count, len(In))").Text
	var c1, n1, c2, n2 int
	if _, err := fmt.Sscan(before, &c1, &n1); err != nil {
		t.Fatal(before, err)
	}
	if _, err := fmt.Sscan(after, &c2, &n2); err != nil {
		t.Fatal(after, err)
	}
	if c2 != c1+1 || n2 != n1+1 {
		t.Errorf("execution count %d → %d, history %d → %d: inspecting counted as executions", c1, c2, n1, n2)
	}
	if len(h.commands()) != 0 {
		t.Errorf("inspecting asked the host: %v", h.commands())
	}
}

func TestVariablesWhileACellRuns(t *testing.T) {
	k := startKernel(t, sharedServer(t, newPython(t)), KernelOptions{Host: &testHost{}})
	started := make(chan struct{})
	done := make(chan *Result, 1)
	go func() {
		res, err := k.Execute(context.Background(), "import time\nprint('go', flush=True)\ntime.sleep(1.5)\ny = 2\nprint('end')", func(c Chunk) {
			if strings.Contains(c.Text, "go") {
				close(started)
			}
		})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-started
	// An inspection that gives up does not disturb the cell.
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := k.Variables(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("inspection during a cell: %v, want it to wait for the cell (deadline exceeded)", err)
	}
	// One that waits sees what the cell made.
	ns, err := k.Variables(inspectCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := byName(ns)["y"]; !ok {
		t.Errorf("y is not listed after the cell: %+v", ns.Variables)
	}
	if res := <-done; !strings.Contains(res.Text, "end") || res.Error != nil {
		t.Errorf("the cell: %+v", res)
	}
}

func TestDescribeErrors(t *testing.T) {
	k := startKernel(t, sharedServer(t, newPython(t)), KernelOptions{Host: &testHost{}})
	if _, err := k.Describe(inspectCtx(t), "nothing_here"); !errors.Is(err, ErrNoVariable) {
		t.Errorf("missing variable: %v", err)
	}
	if _, err := k.Describe(inspectCtx(t), "x); import os; os.system('true'"); err == nil || !strings.Contains(err.Error(), "not a Python variable name") {
		t.Errorf("bad name: %v", err)
	}
	// After a restart the inspector is installed again.
	run(t, k, "z = 3")
	if err := k.Restart(inspectCtx(t)); err != nil {
		t.Fatal(err)
	}
	run(t, k, "w = 4")
	ns, err := k.Variables(inspectCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	got := byName(ns)
	if _, ok := got["z"]; ok || got["w"].Repr != "4" {
		t.Errorf("after restart: %+v", ns.Variables)
	}
}
