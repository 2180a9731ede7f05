package agent_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/notebook"
	"github.com/freeact/desktop/agent/session"
	"github.com/freeact/desktop/internal/testenv"
)

const plotCode = "import numpy as np\nimport matplotlib.pyplot as plt\nx = np.linspace(0, 6.3, 50)\nplt.plot(x, np.sin(x))\nplt.show()\nprint('plotted')"

// goldenSession is a conversation with text, thoughts, a plot, an error, a
// code action the user edited, a cell the user ran again, a file read and
// a restored kernel.
func goldenSession() []model.Message {
	call := func(id, name, args string) model.Part {
		return model.Part{FunctionCall: &model.FunctionCall{ID: id, Name: name, Args: json.RawMessage(args)}}
	}
	resp := func(id, name, out string, isErr bool) model.Part {
		return model.Part{FunctionResponse: &model.FunctionResponse{ID: id, Name: name, Output: out, IsError: isErr}}
	}
	codeArgs := func(code string) string { b, _ := json.Marshal(map[string]string{"code": code}); return string(b) }
	model1 := model.Message{Role: model.RoleModel, Parts: []model.Part{
		{Text: "A sine wave over one period; then the name.", Thought: true},
		{Text: "I'll plot it first."},
		call("c1", agent.ExecuteTool, codeArgs(plotCode)),
	}}
	return []model.Message{
		model.UserText("Plot a sine wave, then print `undefined_name`."),
		model1,
		model.ToolResults(model.FunctionResponse{ID: "c1", Name: agent.ExecuteTool, Output: "![image](images/plot.png)\nplotted\n"}),
		{Role: model.RoleModel, Parts: []model.Part{call("c2", agent.ExecuteTool, codeArgs("print(undefined_name)"))}},
		{Role: model.RoleUser, Parts: []model.Part{resp("c2", agent.ExecuteTool, "---------------------------------------------------------------------------\n"+
			"NameError                                 Traceback (most recent call last)\nCell In[2], line 1\n----> 1 print(undefined_name)\n"+
			"NameError: name 'undefined_name' is not defined\n", true)}},
		{Role: model.RoleModel, Parts: []model.Part{call("c3", agent.ExecuteTool, codeArgs("print(x.max())"))}},
		model.ToolResults(model.FunctionResponse{ID: "c3", Name: agent.ExecuteTool, Output: agent.ExportedEditedResult("print(round(x.max(), 2))", "6.3\n"),
			Ran: &model.Ran{By: agent.ByEdited, Code: "print(round(x.max(), 2))"}}),
		{Role: model.RoleModel, Parts: []model.Part{call("c4", "filesystem_read_text_file", `{"path":"notes.md"}`)}},
		{Role: model.RoleUser, Parts: []model.Part{resp("c4", "filesystem_read_text_file", "# Notes", false)}},
		{Role: model.RoleModel, Parts: []model.Part{{Text: "The plot shows **sin(x)** from 0 to 6.3; `undefined_name` is not defined."}}},
		{Role: model.RoleUser, Parts: []model.Part{{Text: agent.ExportedUserCellNote(agent.CellRerun, "c2", "undefined_name = 'now defined'\nprint(undefined_name)", "now defined\n", false)}}},
		{Role: model.RoleUser, Parts: []model.Part{{Text: agent.ExportedStateNote(agent.StateReplayed, "The kernel lost its state (the session was resumed in a fresh kernel); the user restored it by running this session's 3 earlier successful code cells again, in order. All succeeded: what they made exists again.", 3, 3)}}},
		model.UserText("Thanks <b>a lot</b>!"),
		{Role: model.RoleModel, Parts: []model.Part{{Text: "You're welcome."}}},
	}
}

// exportWorkspace writes the golden session into a workspace with its
// plot, and returns the workspace's configuration and the session id.
func exportWorkspace(t *testing.T) (*config.Config, string) {
	t.Helper()
	ws := workspace(t, "")
	png, err := os.ReadFile(filepath.Join("testdata", "export", "plot.png"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "images"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "images", "plot.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := load(t, ws)
	const id = "5f0c8e1a-0000-4000-8000-000000000001"
	st, err := session.Open[model.Message](cfg.SessionsDir(), id)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Append(agent.MainAgent, goldenSession()...); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return cfg, id
}

func TestExportGolden(t *testing.T) {
	cfg, id := exportWorkspace(t)
	for _, format := range []string{agent.FormatNotebook, agent.FormatMarkdown, agent.FormatHTML} {
		t.Run(format, func(t *testing.T) {
			got, err := agent.ExportSession(cfg, id, format, notebook.Options{Thoughts: true})
			if err != nil {
				t.Fatal(err)
			}
			testenv.Golden(t, filepath.Join("testdata", "export", "session."+format), got)
		})
	}
}

// The notebook holds what the issue asks: prompts and answers as markdown,
// code as code cells with stream, error and image/png outputs, thoughts
// only when asked for; the user's edit and own cell are the code that ran.
func TestExportNotebookCells(t *testing.T) {
	cfg, id := exportWorkspace(t)
	for _, thoughts := range []bool{false, true} {
		raw, err := agent.ExportSession(cfg, id, agent.FormatNotebook, notebook.Options{Thoughts: thoughts})
		if err != nil {
			t.Fatal(err)
		}
		nb, err := notebook.Read(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if nb.NBFormat != 4 || nb.NBFormatMinor != 5 {
			t.Errorf("nbformat %d.%d", nb.NBFormat, nb.NBFormatMinor)
		}
		var code []notebook.Cell
		hasThought := false
		for _, c := range nb.Cells {
			if c.CellType == notebook.Code {
				code = append(code, c)
			}
			hasThought = hasThought || strings.Contains(c.Source, "A sine wave over one period")
		}
		if hasThought != thoughts {
			t.Errorf("thoughts included: %v, want %v", hasThought, thoughts)
		}
		if len(code) != 4 {
			t.Fatalf("%d code cells, want 4", len(code))
		}
		if o := code[0].Outputs; len(o) != 2 || o[0].OutputType != notebook.DisplayData || o[0].Data["image/png"] == "" || o[1].Text != "plotted\n" {
			t.Errorf("plot cell outputs %+v", o)
		}
		if o := code[1].Outputs; len(o) != 1 || o[0].OutputType != notebook.Error || o[0].Ename != "NameError" || o[0].Evalue != "name 'undefined_name' is not defined" {
			t.Errorf("error cell outputs %+v", o)
		}
		if code[2].Source != "print(round(x.max(), 2))" || code[2].Metadata["freeact"] == nil {
			t.Errorf("edited cell %+v", code[2])
		}
		if !strings.HasPrefix(code[3].Source, "undefined_name = 'now defined'") {
			t.Errorf("user cell %+v", code[3])
		}
	}
}

func TestExportErrors(t *testing.T) {
	cfg, id := exportWorkspace(t)
	if _, err := agent.ExportSession(cfg, id, "pdf", notebook.Options{}); err == nil || !strings.Contains(err.Error(), "ipynb, md or html") {
		t.Errorf("unknown format: %v", err)
	}
	if _, err := agent.ExportSession(cfg, "no-such-session", agent.FormatNotebook, notebook.Options{}); err == nil || !strings.Contains(err.Error(), "no session") {
		t.Errorf("unknown session: %v", err)
	}
}

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
	validateNotebook(t, jupyterPython(t), filepath.Join("testdata", "export", "session.ipynb"))
}

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
	raw, err := agent.ExportSession(load(t, ws), a.SessionID(), agent.FormatNotebook, notebook.Options{})
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
	for _, f := range []string{agent.FormatMarkdown, agent.FormatHTML} {
		if _, err := agent.ExportSession(load(t, ws), a.SessionID(), f, notebook.Options{}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// A prompt that carried a note on reverted files exports the note as a
// note and the prompt without it.
func TestTranscriptRevertNote(t *testing.T) {
	note := agent.RevertNotePrefix + "The user reverted changes.\n- write a.txt: a.txt (deleted)\n</workspace-revert>"
	hist := []model.Message{{Role: model.RoleUser, Parts: []model.Part{{Text: note}, {Text: "Write it again."}}}}
	tr := agent.Transcript(hist, "t", t.TempDir())
	if len(tr.Entries) != 2 {
		t.Fatalf("entries %+v", tr.Entries)
	}
	if e := tr.Entries[0]; e.Kind != notebook.KindNote || !strings.HasSuffix(e.Text, "a.txt (deleted)") || strings.Contains(e.Text, "workspace-revert") {
		t.Errorf("note %+v", e)
	}
	if e := tr.Entries[1]; e.Kind != notebook.KindPrompt || e.Text != "Write it again." {
		t.Errorf("prompt %+v", e)
	}
}
