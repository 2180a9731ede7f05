package terminal

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/app/internal/fronttest"
	"github.com/freeact/desktop/internal/testenv"
)

// holdRig is an interactive terminal over a pipe for stdin.
type holdRig struct {
	t     *terminal
	stdin *io.PipeWriter
	mu    sync.Mutex
	out   bytes.Buffer
}

func newHoldRig(t *testing.T) *holdRig {
	pr, pw := io.Pipe()
	r := &holdRig{stdin: pw}
	w := &fronttest.SyncWriter{Mu: &r.mu, W: &r.out}
	r.t = newTerminal(adapter.Streams{In: pr, Out: w, Err: w}, false, nil)
	t.Cleanup(func() { pw.Close() })
	return r
}

// typeLine writes a line to stdin; the pipe takes it once the terminal
// reads.
func (r *holdRig) typeLine(line string) {
	go io.WriteString(r.stdin, line)
}

func (r *holdRig) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String()
}

// heldBy waits until what holds the terminal.
func (r *holdRig) heldBy(t *testing.T, what string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, func() error {
		r.t.holdMu.Lock()
		defer r.t.holdMu.Unlock()
		if r.t.holder != what {
			return errors.New("held by " + r.t.holder + ", not " + what)
		}
		return nil
	})
}

func (r *holdRig) waiting(t *testing.T, n int) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, func() error {
		r.t.holdMu.Lock()
		defer r.t.holdMu.Unlock()
		if r.t.waiters != n {
			return errors.New("not waiting")
		}
		return nil
	})
}

// A question that comes while the prompt waits for a request takes the
// next line; the prompt comes back after it and reads the request.
func TestTerminalPromptGivesWayToAQuestion(t *testing.T) {
	r := newHoldRig(t)
	ctx := context.Background()
	request := make(chan string, 1)
	go func() {
		line, _ := r.t.readRequest(ctx)
		request <- line
	}()
	r.heldBy(t, holdRequest)
	answer := make(chan string, 1)
	go func() {
		if !r.t.take(ctx, nil, "a form") {
			answer <- "not asked"
			return
		}
		line, _ := r.t.readLine(ctx, nil, nil)
		r.t.give()
		answer <- line
	}()
	r.heldBy(t, "a form")
	r.typeLine("the form's answer\n")
	if got := testenv.Receive(t, answer, 30*time.Second, "the form's answer"); got != "the form's answer" {
		t.Fatalf("the form got %q", got)
	}
	r.heldBy(t, holdRequest)
	r.typeLine("the request\n")
	if got := testenv.Receive(t, request, 30*time.Second, "the request"); got != "the request" {
		t.Fatalf("the prompt read %q", got)
	}
	if !strings.HasSuffix(r.text(), "> ") {
		t.Errorf("the prompt was not shown again: %q", r.text())
	}
}

// Two questions at once: the second waits, saying so, and is asked, as
// "next", once the first is answered; each gets its own line.
func TestTerminalSecondQuestionWaitsForTheFirst(t *testing.T) {
	r := newHoldRig(t)
	ctx := context.Background()
	if !r.t.take(ctx, nil, "an approval") {
		t.Fatal("the terminal is not free")
	}
	second := make(chan string, 1)
	go func() {
		if !r.t.take(ctx, nil, "a form") {
			second <- "not asked"
			return
		}
		line, _ := r.t.readLine(ctx, nil, nil)
		r.t.give()
		second <- line
	}()
	r.waiting(t, 1)
	if !strings.Contains(r.text(), "(a form waits until an approval is answered)") {
		t.Errorf("the waiting question is not shown: %q", r.text())
	}
	r.typeLine("y\n")
	if line, _ := r.t.readLine(ctx, nil, nil); line != "y" {
		t.Fatalf("the first question read %q", line)
	}
	r.t.give()
	r.typeLine("the form's answer\n")
	if got := testenv.Receive(t, second, 30*time.Second, "the second answer"); got != "the form's answer" {
		t.Fatalf("the second question got %q", got)
	}
	if !strings.Contains(r.text(), "── next: a form ──") {
		t.Errorf("the next question is not named: %q", r.text())
	}
}

// A question waiting for the terminal gives up when its asker stops.
func TestTerminalWaitingQuestionWithdrawn(t *testing.T) {
	r := newHoldRig(t)
	if !r.t.take(context.Background(), nil, "an approval") {
		t.Fatal("the terminal is not free")
	}
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan bool, 1)
	go func() { got <- r.t.take(ctx, nil, "a form") }()
	r.waiting(t, 1)
	cancel()
	if testenv.Receive(t, got, 30*time.Second, "the withdrawn question") {
		t.Fatal("a withdrawn question took the terminal")
	}
	r.t.give()
	if !r.t.take(context.Background(), nil, "another") {
		t.Fatal("the terminal stayed held")
	}
}
