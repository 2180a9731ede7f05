package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	agentcells "github.com/freeact/desktop/agent/cells"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/internal/testenv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/checkpoint"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/internal/beneath"
)

// revertCase is one entry of testdata/revert_corpus.yaml (its header says
// what each field means).
type revertCase struct {
	Name    string            `yaml:"name"`
	Sandbox bool              `yaml:"sandbox"`
	Files   map[string]string `yaml:"files"`
	Modes   map[string]uint32 `yaml:"modes"`
	Outside bool              `yaml:"outside"`
	Turns   [][]struct {
		Code  string `yaml:"code"`
		Write *struct {
			Path    string `yaml:"path"`
			Content string `yaml:"content"`
		} `yaml:"write"`
	} `yaml:"turns"`
	After  string `yaml:"after"`
	Race   string `yaml:"race"`
	Revert *struct {
		Turn   int      `yaml:"turn"`
		Force  bool     `yaml:"force"`
		Delete []string `yaml:"delete"`
		Times  int      `yaml:"times"`
	} `yaml:"revert"`
	Want struct {
		Error       string            `yaml:"error"`
		Files       map[string]string `yaml:"files"`
		Exists      []string          `yaml:"exists"`
		Absent      []string          `yaml:"absent"`
		Unkept      []string          `yaml:"unkept"`
		Protected   []string          `yaml:"protected"`
		StoreLacks  []string          `yaml:"store_lacks"`
		Output      string            `yaml:"output"`
		OutputLacks []string          `yaml:"output_lacks"`
	} `yaml:"want"`
}

// TestRevertCorpus runs every case of testdata/revert_corpus.yaml: the
// turns' code runs in a real kernel (in the real srt sandbox where the
// case says so), the model faked at the wire and every request approved;
// then the turn is reverted as `freeact checkpoints revert` does (a store
// opened on the same folder) and what the case wants is checked, always
// including that the folder outside the workspace is exactly as it was.
func TestRevertCorpus(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "revert_corpus.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []revertCase
	if err := yaml.Unmarshal(data, &cases); err != nil {
		t.Fatalf("revert_corpus.yaml: %v", err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) { runRevertCase(t, c) })
	}
}

func runRevertCase(t *testing.T, c revertCase) {
	opts := map[string]any{"checkpoints": true, "enable_subagents": false, "enable_persistence": false}
	var agentOpts []agent.Option
	if c.Sandbox {
		srtOnPath(t)
		opts["python"], opts["sandbox"] = testPython(t), true
		agentOpts = append(agentOpts, agent.WithKernelDir(t.TempDir()), agent.WithoutProvisioning())
	} else {
		agentOpts = append(agentOpts, agent.WithKernelServer(server(t)))
	}
	cfgJSON, _ := json.Marshal(opts)
	ws := workspace(t, string(cfgJSON))
	for name, content := range c.Files {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, mode := range c.Modes {
		if err := os.Chmod(filepath.Join(ws, filepath.FromSlash(name)), fs.FileMode(mode)); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "outside")
	if c.Outside {
		if err := os.MkdirAll(filepath.Join(out, "d"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, "x.txt"), []byte("outside"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	outBefore := testenv.Tree(t, out)
	root := t.TempDir()
	subst := strings.NewReplacer("{{OUT}}", out, "{{STORE}}", root).Replace

	// One model turn per case turn: its calls, then "Done.".
	var sc strings.Builder
	sc.WriteString("turns:\n")
	for i, turn := range c.Turns {
		for j, call := range turn {
			id := "c" + string(rune('a'+i)) + string(rune('a'+j))
			name, args := "ipybox_execute_ipython_cell", map[string]any{"code": subst(call.Code)}
			if call.Write != nil {
				name, args = "filesystem_write_text_file", map[string]any{"path": call.Write.Path, "content": call.Write.Content}
			}
			argJSON, _ := json.Marshal(args)
			sc.WriteString("  - reply: [{call: {id: " + id + ", name: " + name + ", args: " + string(argJSON) + "}}]\n")
		}
		sc.WriteString("  - reply: [{text: \"Done.\"}]\n")
	}
	scenario, err := modeltest.ParseScenario([]byte(sc.String()))
	if err != nil {
		t.Fatalf("scenario: %v\n%s", err, sc.String())
	}
	modeltest.UseGemini(t, scenario)
	a := started(t, ws, append(agentOpts, agent.WithCheckpointRoot(root))...)

	var turnIDs []string
	var output strings.Builder
	for i := range c.Turns {
		evs := run(t, a, "turn", nil)
		id := ""
		for _, fc := range of[*agent.FilesChanged](evs) {
			id = fc.TurnID
		}
		for _, o := range of[*agent.CodeExecutionOutput](evs) {
			output.WriteString(o.Text)
		}
		for _, f := range of[*agent.Failed](evs) {
			t.Fatalf("turn %d failed: %v", i+1, f)
		}
		turnIDs = append(turnIDs, id)
	}
	userCell := func(code string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		for ev := range a.RunCells(ctx, []agentcells.UserCell{{Code: subst(code), Source: history.CellRerun}}) {
			if o, ok := ev.(*agent.CodeExecutionOutput); ok {
				if o.Error {
					t.Fatalf("user cell: %s", o.Text)
				}
				t.Logf("user cell: %s", o.Text)
			}
		}
	}
	if c.After != "" {
		userCell(c.After)
	}

	var plan checkpoint.Plan
	var revErr error
	if r := c.Revert; r != nil {
		id := turnIDs[r.Turn-1]
		if id == "" {
			t.Fatalf("turn %d changed no files", r.Turn)
		}
		store, err := checkpoint.Open(checkpoint.Dir(root, ws), ws, checkpoint.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		records, err := store.Find(id)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if plan, err = store.PlanRevert(ctx, records); err != nil && r.Times <= 1 {
			t.Fatalf("plan: %v", err)
		}
		done := 0
		// A race case reverts a quarter of Times, then on until ten
		// reached the files (changed them or refused a link there), at
		// most Times.
		for i := 0; i < max(1, r.Times) && (r.Times <= 1 || i < r.Times/4 || done < 10); i++ {
			var rev *checkpoint.Record
			rev, _, revErr = store.Revert(ctx, records, checkpoint.Info{DeleteUnkept: r.Delete}, r.Force)
			// A revert that refused a swapped link reached the files too.
			if errors.Is(revErr, beneath.ErrLinkSwapped) {
				done++
			}
			if rev != nil && revErr == nil {
				done++
				if r.Times > 1 { // redo, to revert again
					_, _, _ = store.Revert(ctx, []checkpoint.Record{*rev}, checkpoint.Info{}, true)
				}
			}
			// A revert that met the link halfway and could not roll
			// itself back leaves its journal, and no revert runs until it
			// is rolled back: as the user would.
			if in, _ := store.InterruptedRevert(); in != nil {
				_ = store.RollbackRevert(ctx)
			}
		}
		if r.Times > 1 {
			t.Logf("%d reverts reached the files", done)
			if done == 0 {
				t.Fatalf("none of %d reverts reached the files (last: %v): the race did not run", r.Times, revErr)
			}
			revErr = nil
		}
	}
	if c.Race != "" {
		userCell(c.Race)
	}

	w := c.Want
	switch {
	case w.Error == "" && revErr != nil:
		t.Errorf("revert: %v", revErr)
	case w.Error != "" && (revErr == nil || !strings.Contains(revErr.Error(), w.Error)):
		t.Errorf("revert: %v, want an error saying %q", revErr, w.Error)
	}
	for name, want := range w.Files {
		if got, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(name))); err != nil || string(got) != want {
			t.Errorf("%s = %q (%v), want %q", name, got, err, want)
		}
	}
	for _, name := range w.Exists {
		if _, err := os.Lstat(filepath.Join(ws, filepath.FromSlash(name))); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, name := range w.Absent {
		if _, err := os.Lstat(filepath.Join(ws, filepath.FromSlash(name))); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still there (%v)", name, err)
		}
	}
	var unkept, protected []string
	for _, u := range plan.Unkept {
		unkept = append(unkept, u.Path)
	}
	for _, p := range plan.Protected {
		protected = append(protected, p.Path)
		if p.Current == "" || p.Restored == "" {
			t.Errorf("protected %s without both versions: %+v", p.Path, p)
		}
	}
	if len(w.Unkept) > 0 && !slices.Equal(unkept, w.Unkept) {
		t.Errorf("unkept %q, want %q", unkept, w.Unkept)
	}
	if len(w.Protected) > 0 && !slices.Equal(protected, w.Protected) {
		t.Errorf("protected %q, want %q", protected, w.Protected)
	}
	if len(w.StoreLacks) > 0 {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, _ := os.ReadFile(p)
			for _, s := range w.StoreLacks {
				if strings.Contains(string(data), s) {
					t.Errorf("%s holds %q", p, s)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if w.Output != "" && !strings.Contains(output.String(), w.Output) {
		t.Errorf("output lacks %q:\n%s", w.Output, output.String())
	}
	for _, s := range w.OutputLacks {
		if strings.Contains(output.String(), s) {
			t.Errorf("output holds %q:\n%s", s, output.String())
		}
	}
	if got := testenv.Tree(t, out); got != outBefore {
		t.Errorf("outside the workspace changed:\n%s\nwas\n%s", got, outBefore)
	}
}
