// blankview: the smallest WebKitGTK window, the floor the desktop app's
// memory is compared with (BenchmarkDesktopIdleMemory). Like the app's
// window (1180x800, hardware acceleration off) but showing one line of
// HTML: no Go, no app, no kernel.
#include <gtk/gtk.h>
#include <webkit2/webkit2.h>

static gboolean ready(gpointer data) {
	(void)data;
	// The parent reads this line to know the page is shown.
	g_print("loaded\n");
	return G_SOURCE_REMOVE;
}

static void changed(WebKitWebView *v, WebKitLoadEvent e, gpointer data) {
	(void)v;
	(void)data;
	if (e == WEBKIT_LOAD_FINISHED)
		g_idle_add(ready, NULL);
}

int main(int argc, char **argv) {
	gtk_init(&argc, &argv);
	GtkWidget *w = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	gtk_window_set_title(GTK_WINDOW(w), "blankview");
	gtk_window_set_default_size(GTK_WINDOW(w), 1180, 800);
	WebKitWebView *v = WEBKIT_WEB_VIEW(webkit_web_view_new());
	webkit_settings_set_hardware_acceleration_policy(
		webkit_web_view_get_settings(v), WEBKIT_HARDWARE_ACCELERATION_POLICY_NEVER);
	gtk_container_add(GTK_CONTAINER(w), GTK_WIDGET(v));
	g_signal_connect(v, "load-changed", G_CALLBACK(changed), NULL);
	g_signal_connect(w, "destroy", G_CALLBACK(gtk_main_quit), NULL);
	webkit_web_view_load_html(v, "<html><body><p>blank</p></body></html>", NULL);
	gtk_widget_show_all(w);
	gtk_main();
	return 0;
}
