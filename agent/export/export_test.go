package export_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/checkpoint"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/export"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/notebook"
	"github.com/freeact/desktop/agent/seal"
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
	model1 := model.Message{Role: model.RoleModel, Model: goldenModel, Usage: &model.Usage{InputTokens: 12000, OutputTokens: 800}, Parts: []model.Part{
		{Text: "A sine wave over one period; then the name.", Thought: true},
		{Text: "I'll plot it first."},
		call("c1", agent.ExecuteTool, codeArgs(plotCode)),
	}}
	return []model.Message{
		model.UserText("Plot a sine wave, then print `undefined_name`."),
		model1,
		model.ToolResults(model.FunctionResponse{ID: "c1", Name: agent.ExecuteTool, Output: "![image](images/plot.png)\nplotted\n"}),
		{Role: model.RoleModel, Model: goldenModel, Usage: &model.Usage{InputTokens: 14000, OutputTokens: 200}, Parts: []model.Part{call("c2", agent.ExecuteTool, codeArgs("print(undefined_name)"))}},
		{Role: model.RoleUser, Parts: []model.Part{resp("c2", agent.ExecuteTool, "---------------------------------------------------------------------------\n"+
			"NameError                                 Traceback (most recent call last)\nCell In[2], line 1\n----> 1 print(undefined_name)\n"+
			"NameError: name 'undefined_name' is not defined\n", true)}},
		{Role: model.RoleModel, Parts: []model.Part{call("c3", agent.ExecuteTool, codeArgs("print(x.max())"))}},
		model.ToolResults(model.FunctionResponse{ID: "c3", Name: agent.ExecuteTool, Output: history.EditedResult("print(round(x.max(), 2))", "6.3\n"),
			Ran: &model.Ran{By: agent.ByEdited, Code: "print(round(x.max(), 2))"}}),
		{Role: model.RoleModel, Parts: []model.Part{call("c4", "filesystem_read_text_file", `{"path":"notes.md"}`)}},
		{Role: model.RoleUser, Parts: []model.Part{resp("c4", "filesystem_read_text_file", "# Notes", false)}},
		{Role: model.RoleModel, Parts: []model.Part{{Text: "The plot shows **sin(x)** from 0 to 6.3; `undefined_name` is not defined."}}},
		{Role: model.RoleUser, Parts: []model.Part{{Text: history.UserCellNote(history.CellRerun, "c2", "run-0000beef", "undefined_name = 'now defined'\nprint(undefined_name)", "now defined\n", false)}}},
		{Role: model.RoleUser, Parts: []model.Part{{Text: history.StateNote(history.StateReplayed, "The kernel lost its state (the session was resumed in a fresh kernel); the user restored it by running this session's 3 earlier successful code cells again, in order. All succeeded: what they made exists again.", 3, 3)}}},
		model.UserText("Thanks <b>a lot</b>!"),
		{Role: model.RoleModel, Model: "acme:unpriced-model", Usage: &model.Usage{InputTokens: 300, OutputTokens: 10}, Parts: []model.Part{{Text: "You're welcome."}}},
	}
}

// goldenModel is a model of the catalog, with a price.
const goldenModel = "google:gemini-2.5-flash"

// goldenSeconds are the seconds after the start at which each message of
// the golden session was saved: the first turn takes 12.5 s, the second
// 1.2 s.
var goldenSeconds = []float64{0, 3, 5, 6, 7, 8, 9, 10, 11, 12.5, 30, 31, 60, 61.2}

// writeGoldenSession writes the golden session as the session store does,
// with the times of goldenSeconds, and a compaction that replaced its
// first turn.
func writeGoldenSession(t *testing.T, cfg *config.Config, id, keys string, ran ...func(*model.Ran)) {
	t.Helper()
	msgs := goldenSession()
	// The cell the user ran again has its record, sealed whole as the
	// agent seals it; ran changes it after sealing (an edit on disk).
	key, err := seal.Load(keys, cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		for i, p := range m.Parts {
			if n, ok := history.ParseNote(p.Text); ok && n.Kind == history.NoteUserCell {
				r := &model.Ran{By: n.Source, Of: n.Of, Code: n.Code, Run: n.Run}
				key.Sign(r, "")
				for _, change := range ran {
					change(r)
				}
				m.Parts[i].Ran = r
			}
		}
	}
	if len(msgs) != len(goldenSeconds) {
		t.Fatalf("%d messages, %d times", len(msgs), len(goldenSeconds))
	}
	st, err := session.Open[model.Message](cfg.SessionsDir(), id)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AppendCompaction(agent.MainAgent, session.Compaction{Upto: 10, Reason: "manual",
		Summary: "## Done so far\n\nThe user asked for a sine plot; it is in `images/plot.png`."}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	for i, m := range msgs {
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		ts := start.Add(time.Duration(goldenSeconds[i] * float64(time.Second))).Format(session.TimeFormat)
		line, _ := json.Marshal(session.Envelope{V: session.Version, Message: raw, Meta: session.Meta{TS: ts}})
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(filepath.Join(cfg.SessionsDir(), id, agent.MainAgent+".jsonl"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// recordGoldenChanges records in a checkpoint store under root what the
// golden session's first code action changed: it added sine.csv.
func recordGoldenChanges(t *testing.T, root, ws, id string) {
	t.Helper()
	s, err := checkpoint.Open(checkpoint.Dir(root, ws), ws, checkpoint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	before, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "sine.csv"), []byte("x,y\n0,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	after, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Record(ctx, "", checkpoint.Info{Session: id, Agent: agent.MainAgent, Call: "c1", Tool: agent.ExecuteTool, Label: "plot"}, before, after); err != nil {
		t.Fatal(err)
	}
	// The cell the user ran again (run-0000beef) deleted it.
	if err := os.Remove(filepath.Join(ws, "sine.csv")); err != nil {
		t.Fatal(err)
	}
	gone, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Record(ctx, "", checkpoint.Info{Session: id, Agent: agent.MainAgent, Call: "run-0000beef", Tool: agent.ExecuteTool, Label: "again"}, after, gone); err != nil {
		t.Fatal(err)
	}
	// Another session's action on the same call id is not this one's.
	if _, err := s.Record(ctx, "", checkpoint.Info{Session: "other", Agent: agent.MainAgent, Call: "c2", Tool: agent.ExecuteTool, Label: "x"}, before, after); err != nil {
		t.Fatal(err)
	}
}

// exportWorkspace writes the golden session into a workspace with its
// plot, the files its first action changed in a checkpoint store, and
// returns the workspace's configuration, the session id and the store's
// root.
func exportWorkspace(t *testing.T, ran ...func(*model.Ran)) (*config.Config, string, export.Stores) {
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
	keys := t.TempDir()
	writeGoldenSession(t, cfg, id, keys, ran...)
	root := t.TempDir()
	recordGoldenChanges(t, root, ws, id)
	return cfg, id, export.Stores{Checkpoints: root, Keys: keys}
}

// A cell the user ran lists the files its run changed only from its
// record sealed whole: a record edited on disk to point at another
// action, a record without a seal (the note's own run= is text), or an
// export without the key lists none, while the model's actions keep
// theirs.
func TestExportListsUserCellFilesOnlyFromASealedRecord(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ran   func(*model.Ran)
		keys  bool
		files bool
	}{
		{"sealed whole", nil, true, true},
		{"run pointed at another action", func(r *model.Ran) { r.Run = "c1" }, true, false},
		{"no seal", func(r *model.Ran) { r.Seal = "" }, true, false},
		{"no key given", nil, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ran []func(*model.Ran)
			if tc.ran != nil {
				ran = append(ran, tc.ran)
			}
			cfg, id, stores := exportWorkspace(t, ran...)
			if !tc.keys {
				stores.Keys = ""
			}
			md, err := export.ExportSession(cfg, id, export.FormatMarkdown, notebook.Options{}, stores)
			if err != nil {
				t.Fatal(err)
			}
			want := 1 // the model's action
			if tc.files {
				want = 2
			}
			if got := strings.Count(string(md), "Files changed"); got != want || tc.files != strings.Contains(string(md), "`sine.csv` (deleted)") {
				t.Errorf("%d file lists, want %d (the user's cell's only when its record is sealed whole):\n%s", got, want, md)
			}
			if !strings.Contains(string(md), "`sine.csv` (added)") {
				t.Errorf("the model's action lost its files:\n%s", md)
			}
		})
	}
}

func TestExportGolden(t *testing.T) {
	cfg, id, stores := exportWorkspace(t)
	for _, format := range []string{export.FormatNotebook, export.FormatMarkdown, export.FormatHTML} {
		t.Run(format, func(t *testing.T) {
			got, err := export.ExportSession(cfg, id, format, notebook.Options{Thoughts: true}, stores)
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
	cfg, id, stores := exportWorkspace(t)
	for _, thoughts := range []bool{false, true} {
		raw, err := export.ExportSession(cfg, id, export.FormatNotebook, notebook.Options{Thoughts: thoughts}, stores)
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
		// What happened besides the messages: the files the plot cell
		// changed (metadata and a line after it), each turn's time and
		// cost, and the summary that replaced the first turn.
		files, _ := json.Marshal(code[0].Metadata["freeact"])
		if string(files) != `{"files_changed":[{"path":"sine.csv","status":"added"}]}` {
			t.Errorf("plot cell metadata %s", files)
		}
		var md []string
		for _, c := range nb.Cells {
			if c.CellType == notebook.Markdown {
				md = append(md, c.Source)
			}
		}
		all := strings.Join(md, "\n---\n")
		for _, want := range []string{
			"*Files changed: `sine.csv` (added)*",
			"*Turn took 12.5s, cost $0.0103.*",
			"*Turn took 1.2s, cost unknown (no price for the model).*",
			"> **Summary that replaced the conversation above for the model** (manual)",
			"> The user asked for a sine plot",
		} {
			if !strings.Contains(all, want) {
				t.Errorf("the notebook's markdown lacks %q:\n%s", want, all)
			}
		}
		if !strings.Contains(all, "*Files changed: `sine.csv` (deleted)*") {
			t.Errorf("the user's own cell's files are missing:\n%s", all)
		}
		if strings.Count(all, "Files changed") != 2 {
			t.Errorf("files listed for actions that changed none, or another session's:\n%s", all)
		}
	}
}

func TestExportErrors(t *testing.T) {
	cfg, id, _ := exportWorkspace(t)
	if _, err := export.ExportSession(cfg, id, "pdf", notebook.Options{}, export.Stores{}); err == nil || !strings.Contains(err.Error(), "ipynb, md or html") {
		t.Errorf("unknown format: %v", err)
	}
	if _, err := export.ExportSession(cfg, "no-such-session", export.FormatNotebook, notebook.Options{}, export.Stores{}); err == nil || !strings.Contains(err.Error(), "no session") {
		t.Errorf("unknown session: %v", err)
	}
}

// A prompt that carried a note on reverted files exports the note as a
// note and the prompt without it.
func TestTranscriptRevertNote(t *testing.T) {
	note := history.RevertNotePrefix + "The user reverted changes.\n- write a.txt: a.txt (deleted)\n</workspace-revert>"
	hist := []model.Message{{Role: model.RoleUser, Parts: []model.Part{{Text: note}, {Text: "Write it again."}}}}
	tr := export.Transcript(hist, "t", t.TempDir(), export.SessionRecord{})
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

// workspace makes a scaffolded workspace.
func workspace(t testing.TB, agentJSON string) string {
	t.Helper()
	dir := t.TempDir()
	if err := config.Init(dir); err != nil {
		t.Fatal(err)
	}
	if agentJSON != "" {
		if err := os.WriteFile(filepath.Join(dir, config.FreeactDir, config.AgentFile), []byte(agentJSON), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func load(t testing.TB, dir string) *config.Config {
	t.Helper()
	cfg, err := config.Load(dir, config.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
