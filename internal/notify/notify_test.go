package notify_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/notify"
	"github.com/freeact/desktop/internal/notify/notifytest"
)

// A notification reaches the server with one clickable default action,
// and a click on it is reported with its id.
func TestNotifyAndClickOnPrivateBus(t *testing.T) {
	addr := notifytest.Bus(t)
	srv := notifytest.Serve(t, addr)
	clicks := make(chan uint32, 1)
	c, err := notify.Dial(context.Background(), addr, func(id uint32) { clicks <- id })
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Notify(context.Background(), "freeact", "A conversation finished", "In work.")
	if err != nil {
		t.Fatal(err)
	}
	got := srv.Got()
	if len(got) != 1 || got[0].ID != id || got[0].App != "freeact" || got[0].Summary != "A conversation finished" ||
		len(got[0].Actions) != 2 || got[0].Actions[0] != notify.DefaultAction {
		t.Fatalf("server got %+v (id %d)", got, id)
	}
	if err := srv.Click(id); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-clicks:
		if c != id {
			t.Errorf("click reported for %d, want %d", c, id)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the click was not reported")
	}
}

// Without a bus, or with a bus but no notification server, nothing
// breaks: Dial or Notify fails with an error to log.
func TestNoNotificationService(t *testing.T) {
	if _, err := notify.Dial(context.Background(), "", nil); !errors.Is(err, notify.ErrNone) {
		t.Errorf("Dial without a bus = %v, want ErrNone", err)
	}
	addr := notifytest.Bus(t)
	c, err := notify.Dial(context.Background(), addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Notify(context.Background(), "freeact", "s", "b"); err == nil {
		t.Error("Notify with no server on the bus succeeded")
	}
}
