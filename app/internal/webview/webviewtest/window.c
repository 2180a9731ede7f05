//go:build linux && cgo && (desktop || dev)

#include "window.h"

extern void fakeReceived(char *message);
extern char *fakePage(char *uri);

static WebKitWebView *view;

// fake_wails stands in for Wails' handler of the page's messages.
static void fake_wails(WebKitUserContentManager *cm, WebKitJavascriptResult *r, gpointer d) {
	char *m = jsc_value_to_string(webkit_javascript_result_get_js_value(r));
	fakeReceived(m);
	g_free(m);
}

static void serve(WebKitURISchemeRequest *req, gpointer d) {
	char *html = fakePage((char *)webkit_uri_scheme_request_get_uri(req));
	GInputStream *s = g_memory_input_stream_new_from_data(html, -1, free);
	webkit_uri_scheme_request_finish(req, s, -1, "text/html");
	g_object_unref(s);
}

int fake_init(void) { return gtk_init_check(NULL, NULL); }

void fake_window(void) {
	WebKitUserContentManager *cm = webkit_user_content_manager_new();
	webkit_user_content_manager_register_script_message_handler(cm, "external");
	g_signal_connect(cm, "script-message-received::external", G_CALLBACK(fake_wails), NULL);
	webkit_web_context_register_uri_scheme(webkit_web_context_get_default(), "wails", serve, NULL, NULL);
	GtkWidget *w = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
	view = WEBKIT_WEB_VIEW(webkit_web_view_new_with_user_content_manager(cm));
	gtk_box_pack_start(GTK_BOX(box), GTK_WIDGET(view), TRUE, TRUE, 0);
	gtk_container_add(GTK_CONTAINER(w), box);
	gtk_window_set_default_size(GTK_WINDOW(w), 400, 300);
	gtk_widget_show_all(w);
}

static gboolean load(gpointer uri) {
	webkit_web_view_load_uri(view, uri);
	g_free(uri);
	return G_SOURCE_REMOVE;
}

void fake_load(const char *uri) { g_idle_add(load, g_strdup(uri)); }

static gboolean terminate(gpointer d) {
	webkit_web_view_terminate_web_process(view);
	return G_SOURCE_REMOVE;
}

void fake_terminate(void) { g_idle_add(terminate, NULL); }

void fake_main(void) { gtk_main(); }
