//go:build linux && (desktop || dev)

package desktop

/*
#cgo pkg-config: gtk+-3.0
#include <gtk/gtk.h>
#include <stdlib.h>

typedef struct {
	guchar *bytes;
	gsize len;
} clipImage;

// setClipboardImage runs on GTK's main loop: it decodes the image and puts
// it on the clipboard, which the app then serves to whoever pastes.
static gboolean setClipboardImage(gpointer data) {
	clipImage *img = data;
	GError *err = NULL;
	GdkPixbufLoader *loader = gdk_pixbuf_loader_new();
	if (gdk_pixbuf_loader_write(loader, img->bytes, img->len, &err) && gdk_pixbuf_loader_close(loader, &err)) {
		GdkPixbuf *pixbuf = gdk_pixbuf_loader_get_pixbuf(loader);
		gtk_clipboard_set_image(gtk_clipboard_get(GDK_SELECTION_CLIPBOARD), pixbuf);
	} else {
		g_warning("freeact: copy image: %s", err ? err->message : "unknown error");
		gdk_pixbuf_loader_close(loader, NULL);
	}
	if (err) g_error_free(err);
	g_object_unref(loader);
	free(img->bytes);
	free(img);
	return G_SOURCE_REMOVE;
}

static void copyImage(void *bytes, gsize len) {
	clipImage *img = malloc(sizeof(clipImage));
	img->bytes = bytes;
	img->len = len;
	g_idle_add(setClipboardImage, img);
}

extern void freeactClipboardImage(guint id, gchar *data, gsize len);

// gotImage receives the clipboard's image (NULL when it holds none) and
// hands it to Go as PNG.
static void gotImage(GtkClipboard *cb, GdkPixbuf *pixbuf, gpointer data) {
	guint id = GPOINTER_TO_UINT(data);
	gchar *buf = NULL;
	gsize len = 0;
	if (pixbuf != NULL && gdk_pixbuf_save_to_buffer(pixbuf, &buf, &len, "png", NULL, NULL)) {
		freeactClipboardImage(id, buf, len);
		g_free(buf);
		return;
	}
	freeactClipboardImage(id, NULL, 0);
}

static gboolean requestImage(gpointer data) {
	gtk_clipboard_request_image(gtk_clipboard_get(GDK_SELECTION_CLIPBOARD), gotImage, data);
	return G_SOURCE_REMOVE;
}

static void readImage(guint id) {
	g_idle_add(requestImage, GUINT_TO_POINTER(id));
}
*/
import "C"

import (
	"errors"
	"sync"
	"time"
	"unsafe"
)

// clipboardImage puts an encoded image (PNG, JPEG, GIF; checked by the
// caller) on the GTK clipboard; it is set on GTK's main loop, shortly after
// this returns.
func clipboardImage(data []byte) error {
	p := C.CBytes(data)
	C.copyImage(unsafe.Pointer(p), C.gsize(len(data)))
	return nil
}

// pendingReads are the clipboard reads waiting for GTK's answer, by id.
var pendingReads struct {
	sync.Mutex
	next uint
	m    map[uint]chan []byte
}

//export freeactClipboardImage
func freeactClipboardImage(id C.guint, data *C.gchar, n C.gsize) {
	var b []byte
	if data != nil {
		b = C.GoBytes(unsafe.Pointer(data), C.int(n))
	}
	pendingReads.Lock()
	ch := pendingReads.m[uint(id)]
	delete(pendingReads.m, uint(id))
	pendingReads.Unlock()
	if ch != nil {
		ch <- b
	}
}

// readClipboardImage returns the clipboard's image as PNG, nil when it
// holds none. WebKitGTK does not hand a pasted image to the page, so the
// window asks for it here.
func readClipboardImage() ([]byte, error) {
	ch := make(chan []byte, 1)
	pendingReads.Lock()
	if pendingReads.m == nil {
		pendingReads.m = map[uint]chan []byte{}
	}
	pendingReads.next++
	id := pendingReads.next
	pendingReads.m[id] = ch
	pendingReads.Unlock()
	C.readImage(C.guint(id))
	select {
	case b := <-ch:
		return b, nil
	case <-time.After(5 * time.Second):
		pendingReads.Lock()
		delete(pendingReads.m, id)
		pendingReads.Unlock()
		return nil, errors.New("the clipboard did not answer within 5 s")
	}
}
