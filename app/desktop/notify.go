package desktop

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/internal/notify"
)

// notifier tells the desktop (a freedesktop notification) when a
// conversation out of view waits on the user or has finished; a click on
// it brings that conversation into view and raises the window. Without a
// notification service, nothing is shown and nothing breaks.
//
// What crosses to the notification server is the app's name, the state
// ("waits for an approval", "finished", "failed") and the folder's name:
// never the conversation's text, which may hold what the user pasted.
type notifier struct {
	d    *Desktop
	addr string

	mu     sync.Mutex
	client *notify.Client
	failed bool
	ids    map[uint32]string // notification id → session id
}

// newNotifier talks to the bus at addr ("": none).
func newNotifier(d *Desktop, addr string) *notifier {
	return &notifier{d: d, addr: addr, ids: map[uint32]string{}}
}

// notifier returns the desktop's notifier, on the session bus unless a
// test set one.
func (d *Desktop) notifier() *notifier {
	d.notifyOnce.Do(func() {
		if d.notify == nil {
			d.notify = newNotifier(d, notify.SessionAddress())
		}
	})
	return d.notify
}

// notifyTimeout bounds one notification: a stuck bus must not hold a
// turn.
const notifyTimeout = 5 * time.Second

// notify shows what c (of ws, out of view) waits for or how it ended.
func (n *notifier) notify(ws *workspace, c LiveConversation) {
	summary, body := notificationText(ws.dir, c)
	go func() {
		// mu is held until the id is recorded: a click on the notification
		// that comes at once finds it.
		n.mu.Lock()
		defer n.mu.Unlock()
		cl := n.connect()
		if cl == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
		defer cancel()
		id, err := cl.Notify(ctx, adapter.AppName, summary, body)
		if err != nil {
			n.d.log.Info("desktop notification", "err", err)
			return
		}
		n.ids[id] = c.SessionID
	}()
}

// notificationText is the summary and body of the notification about c:
// its state and its folder's name, nothing of the conversation.
func notificationText(dir string, c LiveConversation) (summary, body string) {
	switch c.State {
	case ConvWaiting:
		summary = "A conversation waits for you"
		if c.Waiting > 1 {
			summary = fmt.Sprintf("A conversation waits for you (%d requests)", c.Waiting)
		}
	case ConvFailed:
		summary = "A conversation failed"
	default:
		summary = "A conversation finished"
	}
	name := filepath.Base(dir)
	if utf8.RuneCountInString(name) > 60 {
		name = string([]rune(name)[:60]) + "…"
	}
	body = strings.ToValidUTF8("In "+name+". Click to open it.", "")
	return summary, body
}

// connect returns the client, dialling the bus the first time; nil when
// there is no notification service (then it is not tried again). n.mu is
// held.
func (n *notifier) connect() *notify.Client {
	if n.client != nil || n.failed {
		return n.client
	}
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	cl, err := notify.Dial(ctx, n.addr, n.clicked)
	if err != nil {
		n.failed = true
		n.d.log.Info("no desktop notifications", "err", err)
		return nil
	}
	n.client = cl
	return cl
}

// clicked brings the conversation of notification id into view.
func (n *notifier) clicked(id uint32) {
	n.mu.Lock()
	sid, ok := n.ids[id]
	delete(n.ids, id)
	n.mu.Unlock()
	if !ok {
		return
	}
	if w := n.d.liveFind(sid); w != nil {
		n.d.bringIntoView(w)
	}
	n.d.host.raise()
}

// close disconnects from the bus.
func (n *notifier) close() {
	n.mu.Lock()
	cl := n.client
	n.client, n.failed = nil, true
	n.mu.Unlock()
	if cl != nil {
		cl.Close()
	}
}
