package terminal

import (
	"context"
	"fmt"
	"github.com/freeact/desktop/agent/cells"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/checkpoint"
	"github.com/freeact/desktop/internal/testenv"
)

// startupAsk is one of the questions asked outside a turn: the recovery
// of an interrupted revert, the replay offer, /undo's plan and confirms.
type startupAsk struct {
	name   string
	holder string
	ask    func(ctx context.Context, t *terminal) string
	// steps are the question's prompts, each answered by its line.
	steps [][2]string
	want  string
}

func startupAsks() []startupAsk {
	return []startupAsk{
		{
			name:   "an interrupted revert's recovery",
			holder: holdRecover,
			ask: func(ctx context.Context, t *terminal) string {
				line, ok := t.askRecover(ctx, &checkpoint.Interrupted{Label: "undo turn 1", Files: 2, Time: time.Now()}, true)
				return fmt.Sprintf("%s %v", line, ok)
			},
			steps: [][2]string{{"or decide later (Enter)? ", "f\n"}},
			want:  "f true",
		},
		{
			name:   "the replay offer",
			holder: HoldReplay,
			ask: func(ctx context.Context, t *terminal) string {
				ans, ok := t.askReplay(ctx, cells.ReplayOffer{Reason: cells.LostResumed, Cells: []agent.Cell{{Code: "x = 1\ny = 2"}}})
				return fmt.Sprintf("%s %v", ans, ok)
			},
			// v shows all the code and asks again: still one question.
			steps: [][2]string{{"v shows all their code] ", "v\n"}, {"y = 2\n", ""}, {"v shows all their code] ", "y\n"}},
			want:  "y true",
		},
		{
			name:   "/undo's plan and its two confirms",
			holder: holdUndo,
			ask: func(ctx context.Context, t *terminal) string {
				force, proceed, del := t.confirmUndo(ctx, "Revert turn 1: make it\n", checkpoint.Plan{Unkept: []checkpoint.Unkept{{Path: "big.bin", Size: 10 << 20}}})
				return fmt.Sprint(force, proceed, del)
			},
			steps: [][2]string{{"Delete big.bin? [y/N] ", "y\n"}, {"Revert 1 files? [y/N] ", "y\n"}},
			want:  "false true [big.bin]",
		},
	}
}

// answer types each step's line once its prompt is on the screen after
// the first seen bytes, one prompt after the other.
func (r *holdRig) answer(t *testing.T, seen int, steps [][2]string) int {
	t.Helper()
	for _, s := range steps {
		testenv.Eventually(t, 30*time.Second, func() error {
			if !strings.Contains(r.text()[seen:], s[0]) {
				return fmt.Errorf("%q is not shown after %q", s[0], r.text()[:seen])
			}
			return nil
		})
		seen = strings.Index(r.text()[seen:], s[0]) + seen + len(s[0])
		if s[1] != "" {
			r.typeLine(s[1])
		}
	}
	return seen
}

// A server's form that comes while a question outside a turn is asked
// waits, saying so, until all of that question is answered, and prints
// nothing into it; each answer reaches its own question.
func TestTerminalQuestionOutsideATurnHoldsTheTerminal(t *testing.T) {
	for _, tc := range startupAsks() {
		t.Run(tc.name, func(t *testing.T) {
			r := newHoldRig(t)
			ctx := context.Background()
			got := make(chan string, 1)
			go func() { got <- tc.ask(ctx, r.t) }()
			r.heldBy(t, tc.holder)
			form := make(chan string, 1)
			go func() {
				if !r.t.take(ctx, nil, "a form") {
					form <- "not asked"
					return
				}
				r.t.write("FORM? ")
				line, _ := r.t.readLine(ctx, nil, nil)
				r.t.give()
				form <- line
			}()
			r.waiting(t, 1)
			if want := "(a form waits until " + tc.holder + " is answered)"; !strings.Contains(r.text(), want) {
				t.Errorf("the waiting form is not shown: want %q in %q", want, r.text())
			}
			answered := r.answer(t, 0, tc.steps)
			if a := testenv.Receive(t, got, 30*time.Second, "the answer"); a != tc.want {
				t.Fatalf("the question got %q, want %q; screen:\n%s", a, tc.want, r.text())
			}
			r.heldBy(t, "a form")
			r.answer(t, answered, [][2]string{{"── next: a form ──", ""}, {"FORM? ", "the form's answer\n"}})
			if a := testenv.Receive(t, form, 30*time.Second, "the form's answer"); a != "the form's answer" {
				t.Fatalf("the form got %q", a)
			}
		})
	}
}

// A question outside a turn that comes while a server's form is asked
// (a form sent while the server connects) waits until the form is
// answered, shows nothing meanwhile, and then is asked.
func TestTerminalQuestionOutsideATurnWaitsForAForm(t *testing.T) {
	for _, tc := range startupAsks() {
		t.Run(tc.name, func(t *testing.T) {
			r := newHoldRig(t)
			ctx := context.Background()
			if !r.t.take(ctx, nil, "a form") {
				t.Fatal("the terminal is not free")
			}
			r.t.write("FORM? ")
			got := make(chan string, 1)
			go func() { got <- tc.ask(ctx, r.t) }()
			r.waiting(t, 1)
			r.typeLine("the form's answer\n")
			if line, _ := r.t.readLine(ctx, nil, nil); line != "the form's answer" {
				t.Fatalf("the form got %q", line)
			}
			if s := r.text(); s != "FORM? " && !strings.HasPrefix(s, "FORM? \n(") {
				t.Errorf("the waiting question printed into the form: %q", s)
			}
			r.t.give()
			r.answer(t, 0, tc.steps)
			if a := testenv.Receive(t, got, 30*time.Second, "the answer"); a != tc.want {
				t.Fatalf("the question got %q, want %q; screen:\n%s", a, tc.want, r.text())
			}
		})
	}
}
