package event

import (
	"sync"
	"testing"
)

// Events pushed from several goroutines while the reader waits all come
// out, each goroutine's in its order, and Next says the end after Close.
func TestQueueDeliversEveryPushedEventThenEnds(t *testing.T) {
	q := NewQueue()
	const writers, each = 4, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				q.Push(&Notice{Meta: Meta{AgentID: string(rune('a' + w))}, Text: string(rune(i))})
			}
		}()
	}
	go func() { wg.Wait(); q.Close() }()
	next := map[string]int{}
	total := 0
	for {
		batch, ok := q.Next()
		if !ok {
			break
		}
		if len(batch) == 0 {
			t.Fatal("Next returned an empty batch with ok")
		}
		for _, ev := range batch {
			n := ev.(*Notice)
			if got := int([]rune(n.Text)[0]); got != next[n.AgentID] {
				t.Fatalf("writer %s: event %d came where %d was due", n.AgentID, got, next[n.AgentID])
			}
			next[n.AgentID]++
			total++
		}
	}
	if total != writers*each {
		t.Fatalf("got %d events, want %d", total, writers*each)
	}
	if _, ok := q.Next(); ok {
		t.Fatal("Next after the end says there is more")
	}
}
