package kernel

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestExecuteOutputs(t *testing.T) {
	s := sharedServer(t, newPython(t))
	ws := t.TempDir()
	k := startKernel(t, s, KernelOptions{Workspace: ws})
	cases := []struct {
		name      string
		code      string
		wantText  []string
		wantErr   string // "Name: message" prefix
		wantImage string // extension
	}{
		{name: "stdout and result", code: "print('out')\n6*7", wantText: []string{"out\n", "42\n"}},
		{name: "stderr", code: "import sys; print('warn', file=sys.stderr)", wantText: []string{"warn\n"}},
		{name: "syntax error", code: "def f(:\n  pass", wantErr: "SyntaxError: "},
		{name: "exception", code: "def g():\n    raise ValueError('boom')\ng()", wantErr: "ValueError: boom", wantText: []string{"----> 3 g()", "ValueError: boom"}},
		{name: "binary garbage", code: "import os, sys\nos.write(1, bytes(range(256)) * 4)\nprint(''.join(map(chr, range(1, 0x3000))))\nprint('\\x00\\x1b[31mred')\nsys.stdout.write('\\udcff')", wantText: []string{"red"}},
		{name: "png", code: "import matplotlib\nmatplotlib.use('module://matplotlib_inline.backend_inline')\nimport matplotlib.pyplot as plt\nplt.plot([1, 2, 3]); plt.show()", wantImage: ".png"},
		{name: "jpeg", code: "from IPython.display import Image, display\nimport io\nimport matplotlib.pyplot as plt\nb = io.BytesIO(); plt.figure(); plt.plot([3, 1]); plt.savefig(b, format='jpeg'); plt.close('all')\ndisplay(Image(data=b.getvalue(), format='jpeg'))", wantImage: ".jpg"},
		{name: "svg", code: "from IPython.display import SVG, display\ndisplay(SVG('<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4\" height=\"4\"><rect width=\"4\" height=\"4\"/></svg>'))", wantImage: ".svg"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, k, c.code)
			for _, w := range c.wantText {
				if !strings.Contains(res.Text, w) {
					t.Errorf("text %q does not contain %q", res.Text, w)
				}
			}
			if strings.Contains(res.Text, "\x1b[3") && c.name != "binary garbage" {
				t.Errorf("ANSI codes in %q", res.Text)
			}
			switch {
			case c.wantErr == "" && res.Error != nil:
				t.Errorf("unexpected error %v", res.Error)
			case c.wantErr != "" && (res.Error == nil || !strings.HasPrefix(res.Error.Error(), c.wantErr)):
				t.Errorf("error %v, want %q", res.Error, c.wantErr)
			case c.wantErr != "":
				if strings.Contains(res.Error.Traceback, "\x1b[") {
					t.Errorf("ANSI codes in traceback %q", res.Error.Traceback)
				}
				if !strings.HasSuffix(strings.TrimSpace(res.Text), strings.TrimSpace(res.Error.Error())) {
					t.Errorf("text should end with %q: %q", res.Error.Error(), res.Text)
				}
			}
			if c.wantImage != "" {
				if len(res.Images) != 1 || filepath.Ext(res.Images[0]) != c.wantImage || filepath.Dir(res.Images[0]) != filepath.Join(ws, "images") {
					t.Fatalf("images %v, want one %s under %s/images", res.Images, c.wantImage, ws)
				}
				st, err := os.Stat(res.Images[0])
				if err != nil || st.Size() < 50 {
					t.Fatalf("saved image: %v %v", st, err)
				}
				if !strings.Contains(res.Text, "![image]("+res.Images[0]+")") {
					t.Errorf("text does not link the image: %q", res.Text)
				}
			}
		})
	}
}

// An error's traceback starts a line of its own, also after output that
// did not end its line (a print loop interrupted), and ErrorText tells it
// apart from the output before it.
func TestErrorStartsItsOwnLine(t *testing.T) {
	s := sharedServer(t, newPython(t))
	k := startKernel(t, s, KernelOptions{Workspace: t.TempDir()})
	check := func(t *testing.T, res *Result, before, last string) {
		t.Helper()
		if !strings.HasPrefix(res.Text, before+"\n") || res.Text != before+"\n"+res.ErrorText {
			t.Errorf("text %q, want %q on its own line, then the error %q", res.Text, before, res.ErrorText)
		}
		if lines := strings.Split(strings.TrimSpace(res.ErrorText), "\n"); !strings.HasPrefix(lines[len(lines)-1], last) {
			t.Errorf("the error's text ends %q, want it to start %q:\n%s", lines[len(lines)-1], last, res.ErrorText)
		}
	}
	t.Run("raised", func(t *testing.T) {
		res := run(t, k, "import sys\nsys.stdout.write('partial'); sys.stdout.flush()\nraise KeyboardInterrupt")
		check(t, res, "partial", "KeyboardInterrupt")
	})
	t.Run("interrupted", func(t *testing.T) {
		started := make(chan struct{})
		var once sync.Once
		done := make(chan *Result, 1)
		go func() {
			res, _ := k.Execute(context.Background(), "import sys, time\nsys.stdout.write('working'); sys.stdout.flush()\ntime.sleep(120)", func(c Chunk) {
				if strings.Contains(c.Text, "working") {
					once.Do(func() { close(started) })
				}
			})
			done <- res
		}()
		<-started
		if err := k.Interrupt(context.Background()); err != nil {
			t.Fatal(err)
		}
		res := <-done
		check(t, res, "working", "KeyboardInterrupt")
	})
	t.Run("no error", func(t *testing.T) {
		if res := run(t, k, "print('fine')"); res.ErrorText != "" {
			t.Errorf("ErrorText %q for a cell that raised nothing", res.ErrorText)
		}
	})
}

func TestCwdReset(t *testing.T) {
	s := sharedServer(t, newPython(t))
	ws := t.TempDir()
	other := t.TempDir()
	k := startKernel(t, s, KernelOptions{Workspace: ws})
	if res := run(t, k, "import os; print(os.getcwd())"); strings.TrimSpace(res.Text) != ws || res.CwdReset != "" {
		t.Fatalf("first cell cwd %q reset %q, want %q", res.Text, res.CwdReset, ws)
	}
	for _, code := range []string{"os.chdir(" + quote(other) + ")", "os.chdir(" + quote(other) + "); 1/0"} {
		res := run(t, k, code)
		if res.CwdReset != other {
			t.Fatalf("%s: CwdReset %q, want %q", code, res.CwdReset, other)
		}
		if res := run(t, k, "print(os.getcwd())"); strings.TrimSpace(res.Text) != ws {
			t.Fatalf("cwd after reset %q", res.Text)
		}
	}
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "\\'") + "'" }

func TestStreamingChunks(t *testing.T) {
	s := sharedServer(t, newPython(t))
	k := startKernel(t, s, KernelOptions{})
	var mu sync.Mutex
	var chunks []Chunk
	var firstAt time.Time
	start := time.Now()
	res, err := k.Execute(context.Background(), "import time, sys\nfor i in range(3):\n    print('tick', i, flush=True)\n    time.sleep(0.3)\nprint('err', file=sys.stderr)", func(c Chunk) {
		mu.Lock()
		defer mu.Unlock()
		if firstAt.IsZero() {
			firstAt = time.Now()
		}
		chunks = append(chunks, c)
	})
	if err != nil {
		t.Fatal(err)
	}
	total := time.Since(start)
	if len(chunks) < 3 || firstAt.Sub(start) > total/2 {
		t.Fatalf("output was not streamed: %d chunks, first after %s of %s", len(chunks), firstAt.Sub(start), total)
	}
	var joined strings.Builder
	for _, c := range chunks {
		joined.WriteString(c.Text)
	}
	if joined.String() != res.Text || chunks[len(chunks)-1].Kind != ChunkStderr {
		t.Fatalf("chunks %+v do not add up to %q", chunks, res.Text)
	}
}

// Writes are batched in the kernel while a cell runs (freeact_kernel's
// _OutputBatch): output written without a flush still reaches the host while
// the code runs, whatever writes it (print, a thread, a nested cell), in the
// order written to each stream, and the streams are themselves again after
// the cell.
func TestBatchedOutputStreams(t *testing.T) {
	for _, py := range []struct {
		name string
		py   func(testing.TB) string
	}{{"new", newPython}, {"old", oldPython}} {
		t.Run(py.name, func(t *testing.T) { testBatchedOutput(t, sharedServer(t, py.py(t))) })
	}
}

func testBatchedOutput(t *testing.T, s *Server) {
	for _, v := range []struct{ name, code string }{
		{"print", "print('tick')"},
		{"write", "import sys; sys.stderr.write('tick\\n')"},
		{"thread", "import threading; th = threading.Thread(target=print, args=('tick',)); th.start(); th.join()"},
		{"nested cell", "get_ipython().run_cell(\"print('tick')\")"},
	} {
		t.Run(v.name, func(t *testing.T) {
			k := startKernel(t, s, KernelOptions{})
			seen := filepath.Join(t.TempDir(), "seen")
			// The cell waits, without flushing, until the host has the line.
			code := v.code + fmt.Sprintf(`
import os, time
deadline = time.monotonic() + 60
while not os.path.exists(%q):
    if time.monotonic() > deadline:
        raise SystemExit("the host never saw the output")
    time.sleep(0.01)
print('done')`, seen)
			var once sync.Once
			res, err := k.Execute(context.Background(), code, func(c Chunk) {
				if strings.Contains(c.Text, "tick") {
					once.Do(func() { _ = os.WriteFile(seen, nil, 0o644) })
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Error != nil || res.Text != "tick\ndone\n" {
				t.Fatalf("text %q, error %v", res.Text, res.Error)
			}
			res = run(t, k, "import freeact_kernel as f; print(f._output.depth, len(f._output.saved))")
			if res.Text != "1 2\n" {
				t.Fatalf("cells running, streams batched: %s, want 1 2 (one cell, both streams)", res.Text)
			}
		})
	}
}

// The last output of a cell may arrive after execute_reply; the result must
// still have it.
func TestLastOutputNotLost(t *testing.T) {
	s := sharedServer(t, newPython(t))
	k := startKernel(t, s, KernelOptions{})
	for i := 0; i < 30; i++ {
		want := "tail-" + strings.Repeat("x", i)
		res := run(t, k, "import sys; _ = sys.stdout.write('"+want+"')")
		if res.Text != want {
			t.Fatalf("cell %d: text %q, want %q", i, res.Text, want)
		}
	}
}

func TestHugeOutput(t *testing.T) {
	s := sharedServer(t, newPython(t))
	k := startKernel(t, s, KernelOptions{})
	res := run(t, k, "import sys\nline = 'y' * 999 + '\\n'\nfor _ in range(50_000): sys.stdout.write(line)\nprint('end')")
	if len(res.Text) != 50_000_000+4 || !strings.HasSuffix(res.Text, "end\n") {
		t.Fatalf("got %d bytes ending %q", len(res.Text), res.Text[max(0, len(res.Text)-20):])
	}
}

func TestStatePersists(t *testing.T) {
	s := sharedServer(t, newPython(t))
	k := startKernel(t, s, KernelOptions{})
	run(t, k, "import math\ndef area(r): return math.pi * r * r")
	if res := run(t, k, "round(area(2), 3)"); !strings.Contains(res.Text, "12.566") {
		t.Fatalf("%q", res.Text)
	}
}
