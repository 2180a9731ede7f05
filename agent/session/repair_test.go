package session

import (
	"os"
	"strings"
	"testing"
)

// A torn message line and a torn compaction line are cut off once, kept
// aside, and said: what file, how much, what it was.
func TestRepairReportsWhatWasDropped(t *testing.T) {
	dir := t.TempDir()
	st, _ := Open[map[string]string](dir, "s1")
	if err := st.Append(MainAgent, map[string]string{"role": "user", "text": "hi"}, map[string]string{"role": "model", "text": "hello"}); err != nil {
		t.Fatal(err)
	}
	if err := st.AppendCompaction(MainAgent, Compaction{Upto: 1, Summary: "s"}); err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	torn := `{"v":1,"message":{"role":"model","text":"a long answer cut`
	appendTo(t, st.File(MainAgent), torn)
	appendTo(t, st.compactionsFile(MainAgent), `{"v":1,"upto":2,"summ`)

	st2, _ := Open[map[string]string](dir, "s1")
	defer st2.Close()
	reps, err := st2.Repair()
	if err != nil || len(reps) != 2 {
		t.Fatalf("Repair = %+v, %v; want two repairs", reps, err)
	}
	msg := reps[0].String()
	if !strings.Contains(msg, "main.jsonl") || !strings.Contains(msg, "a model message") || reps[0].Bytes != len(torn) {
		t.Errorf("message repair said %q", msg)
	}
	if kept, err := os.ReadFile(reps[0].Kept); err != nil || string(kept) != torn {
		t.Errorf("kept %q, %v", kept, err)
	}
	if !strings.Contains(reps[1].String(), "compactions/main.jsonl") {
		t.Errorf("compaction repair said %q", reps[1])
	}
	if again, _ := st2.Repair(); len(again) != 0 {
		t.Errorf("reported twice: %v", again)
	}
	st3, _ := Open[map[string]string](dir, "s1")
	defer st3.Close()
	if again, _ := st3.Repair(); len(again) != 0 {
		t.Errorf("reported again at the next start: %v", again)
	}
	if msgs, err := st3.Load(MainAgent); err != nil || len(msgs) != 2 {
		t.Errorf("Load = %v, %v", msgs, err)
	}
	if cs, err := st3.Compactions(MainAgent); err != nil || len(cs) != 1 {
		t.Errorf("Compactions = %v, %v", cs, err)
	}
}

func appendTo(t *testing.T, name, text string) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
