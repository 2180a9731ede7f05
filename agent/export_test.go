package agent_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/export"
	"github.com/freeact/desktop/agent/notebook"
	"github.com/freeact/desktop/internal/testenv"
)

// jupyterPython is the test venv's Python with nbformat and nbconvert.
func jupyterPython(t *testing.T) string {
	py := testPython(t)
	if exec.Command(py, "-c", "import nbformat, nbconvert").Run() != nil {
		testenv.Missing(t, "no nbformat or nbconvert in "+py+": run scripts/setup-python.sh")
	}
	return py
}

// validateNotebook checks a notebook with nbformat's schema and converts it
// with jupyter nbconvert, as JupyterLab would open it.
func validateNotebook(t *testing.T, py, path string) {
	t.Helper()
	out, err := exec.Command(py, "-c", "import sys, nbformat\nnb = nbformat.read(sys.argv[1], as_version=nbformat.NO_CONVERT)\nassert (nb.nbformat, nb.nbformat_minor) == (4, 5), (nb.nbformat, nb.nbformat_minor)\nnbformat.validate(nb)\nprint('valid')", path).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "valid" {
		t.Fatalf("nbformat.validate(%s): %v\n%s", path, err, out)
	}
	dir := t.TempDir()
	out, err = exec.Command(py, "-m", "jupyter", "nbconvert", "--to", "html", "--output-dir", dir, path).CombinedOutput()
	if err != nil {
		t.Fatalf("jupyter nbconvert --to html %s: %v\n%s", path, err, out)
	}
	html, err := os.ReadFile(filepath.Join(dir, strings.TrimSuffix(filepath.Base(path), ".ipynb")+".html"))
	if err != nil || !bytes.Contains(html, []byte("data:image/png;base64,")) {
		t.Errorf("nbconvert's HTML has no embedded PNG (%v)", err)
	}
}

func TestExportGoldenValidates(t *testing.T) {
	validateNotebook(t, jupyterPython(t), filepath.Join("export", "testdata", "export", "session.ipynb"))
}

// plotCode is the plot of the golden session (agent/export).
const plotCode = "import numpy as np\nimport matplotlib.pyplot as plt\nx = np.linspace(0, 6.3, 50)\nplt.plot(x, np.sin(x))\nplt.show()\nprint('plotted')"

// A session run with a real kernel (text, a plot, an error) exports to a
// notebook that nbformat and nbconvert accept, holding the real plot.
func TestExportRealSession(t *testing.T) {
	py := jupyterPython(t)
	a, _, ws := realKernels.start(t, `
turns:
  - reply:
      - {text: "Plotting."}
      - call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+jsonString(plotCode)+`}}
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print(undefined_name)"}}}]
  - reply: [{text: "Done: a sine wave, and an error."}]
`)
	run(t, a, "Plot, then fail.", nil)
	raw, err := export.ExportSession(load(t, ws), a.SessionID(), export.FormatNotebook, notebook.Options{}, export.Stores{})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "session.ipynb")
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	validateNotebook(t, py, p)
	nb, err := notebook.Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			kinds = append(kinds, o.OutputType)
			if o.OutputType == notebook.Error && o.Ename != "NameError" {
				t.Errorf("error output %+v", o)
			}
		}
	}
	if strings.Join(kinds, ",") != "display_data,stream,error" {
		t.Errorf("outputs %q, want the plot, its print and the error", kinds)
	}
	for _, f := range []string{export.FormatMarkdown, export.FormatHTML} {
		if _, err := export.ExportSession(load(t, ws), a.SessionID(), f, notebook.Options{}, export.Stores{}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
