//go:build linux && (desktop || dev)

package app

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
*/
import "C"

import "unsafe"

// clipboardImage puts an encoded image (PNG, JPEG, GIF; checked by the
// caller) on the GTK clipboard; it is set on GTK's main loop, shortly after
// this returns.
func clipboardImage(data []byte) error {
	p := C.CBytes(data)
	C.copyImage(unsafe.Pointer(p), C.gsize(len(data)))
	return nil
}
