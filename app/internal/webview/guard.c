//go:build linux && cgo && (desktop || dev)

#include "guard.h"

extern int guardDecide(uintptr_t h, char *uri, int kind, int gesture);
extern int guardMessage(uintptr_t h, char *uri, char *message);
extern void guardTerminated(uintptr_t h, int reason);
extern void guardAttached(uintptr_t h, char *uri, char *err);

struct guard {
	uintptr_t h;
	WebKitWebView *view;
	WebKitUserContentManager *cm;
	gchar *start;     // the URI the web view was given: the app's page
	guint message;    // the signal id of script-message-received
	GQuark external;  // its detail, Wails' handler name
	GArray *wails;    // the handler ids (gulong) of the handlers found there
	gulong own;       // ours
};

static void find_view(GtkWidget *w, gpointer data) {
	WebKitWebView **found = data;
	if (*found != NULL) return;
	if (WEBKIT_IS_WEB_VIEW(w)) {
		*found = WEBKIT_WEB_VIEW(w);
		return;
	}
	if (GTK_IS_CONTAINER(w)) gtk_container_forall(GTK_CONTAINER(w), find_view, data);
}

static gboolean on_decide(WebKitWebView *v, WebKitPolicyDecision *d, WebKitPolicyDecisionType t, gpointer data) {
	guard *g = data;
	int kind;
	switch (t) {
	case WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION:
		kind = 0;
		break;
	case WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION:
		kind = 1;
		break;
	default:
		return FALSE; // a response: WebKit's own answer
	}
	WebKitNavigationAction *a = webkit_navigation_policy_decision_get_navigation_action(WEBKIT_NAVIGATION_POLICY_DECISION(d));
	WebKitURIRequest *r = webkit_navigation_action_get_request(a);
	const gchar *uri = r ? webkit_uri_request_get_uri(r) : NULL;
	int gesture = webkit_navigation_action_is_user_gesture(a) ? 1 : 0;
	if (guardDecide(g->h, (char *)(uri ? uri : ""), kind, gesture))
		webkit_policy_decision_use(d);
	else
		webkit_policy_decision_ignore(d);
	return TRUE;
}

// on_message runs instead of Wails' handlers (blocked): it lets them see
// the message, by emitting it again with them unblocked, only while the
// web view shows the app's origin and, for a call, when it carries the
// capability.
static void on_message(WebKitUserContentManager *cm, WebKitJavascriptResult *res, gpointer data) {
	guard *g = data;
	const gchar *uri = webkit_web_view_get_uri(g->view);
	JSCValue *value = webkit_javascript_result_get_js_value(res);
	char *message = jsc_value_is_string(value) ? jsc_value_to_string(value) : NULL;
	int ok = guardMessage(g->h, (char *)(uri ? uri : ""), message ? message : "");
	g_free(message);
	if (!ok) return;
	g_signal_handler_block(cm, g->own);
	for (guint i = 0; i < g->wails->len; i++) g_signal_handler_unblock(cm, g_array_index(g->wails, gulong, i));
	g_signal_emit(cm, g->message, g->external, res);
	for (guint i = 0; i < g->wails->len; i++) g_signal_handler_block(cm, g_array_index(g->wails, gulong, i));
	g_signal_handler_unblock(cm, g->own);
}

static void on_terminated(WebKitWebView *v, WebKitWebProcessTerminationReason reason, gpointer data) {
	guard *g = data;
	guardTerminated(g->h, (int)reason);
}

static gboolean attach(gpointer data) {
	guard *g = data;
	WebKitWebView *view = NULL;
	GList *tops = gtk_window_list_toplevels();
	for (GList *l = tops; l != NULL && view == NULL; l = l->next) find_view(GTK_WIDGET(l->data), &view);
	g_list_free(tops);
	if (view == NULL) {
		guardAttached(g->h, "", "no web view in the app's windows");
		return G_SOURCE_REMOVE;
	}
	g->view = g_object_ref(view);
	g->cm = webkit_web_view_get_user_content_manager(view);
	const gchar *uri = webkit_web_view_get_uri(view);
	g->start = g_strdup(uri ? uri : "");
	g->message = g_signal_lookup("script-message-received", WEBKIT_TYPE_USER_CONTENT_MANAGER);
	g->external = g_quark_from_static_string("external");
	g->wails = g_array_new(FALSE, FALSE, sizeof(gulong));
	// Every handler of the message Wails answers is blocked; ours decides.
	for (;;) {
		gulong id = g_signal_handler_find(g->cm, G_SIGNAL_MATCH_ID | G_SIGNAL_MATCH_DETAIL | G_SIGNAL_MATCH_UNBLOCKED,
		                                  g->message, g->external, NULL, NULL, NULL);
		if (id == 0) break;
		g_signal_handler_block(g->cm, id);
		g_array_append_val(g->wails, id);
	}
	if (g->wails->len == 0) {
		guardAttached(g->h, g->start, "no handler of the page's messages to guard");
		return G_SOURCE_REMOVE;
	}
	g->own = g_signal_connect(g->cm, "script-message-received::external", G_CALLBACK(on_message), g);
	g_signal_connect(view, "decide-policy", G_CALLBACK(on_decide), g);
	g_signal_connect(view, "web-process-terminated", G_CALLBACK(on_terminated), g);
	guardAttached(g->h, g->start, "");
	return G_SOURCE_REMOVE;
}

guard *guard_new(uintptr_t h) {
	guard *g = g_new0(guard, 1);
	g->h = h;
	return g;
}

void guard_attach(guard *g) { g_idle_add(attach, g); }

static gboolean reload(gpointer data) {
	guard *g = data;
	if (g->view != NULL && g->start != NULL && g->start[0] != '\0') webkit_web_view_load_uri(g->view, g->start);
	return G_SOURCE_REMOVE;
}

void guard_reload(guard *g) { g_idle_add(reload, g); }

typedef struct {
	guard *g;
	gchar *title;
	gchar *message;
} saying;

extern void guardSaid(uintptr_t h);

// say shows message in a modal dialog over the app's window whose one
// button is Quit, and tells Go when it is closed.
static gboolean say(gpointer data) {
	saying *s = data;
	GtkWindow *parent = NULL;
	if (s->g->view != NULL) {
		GtkWidget *top = gtk_widget_get_toplevel(GTK_WIDGET(s->g->view));
		if (GTK_IS_WINDOW(top)) parent = GTK_WINDOW(top);
	}
	GtkWidget *d = gtk_message_dialog_new(parent, GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT, GTK_MESSAGE_ERROR,
	                                      GTK_BUTTONS_NONE, "%s", s->message);
	gtk_window_set_title(GTK_WINDOW(d), s->title);
	gtk_dialog_add_button(GTK_DIALOG(d), "_Quit", GTK_RESPONSE_CLOSE);
	gtk_dialog_run(GTK_DIALOG(d));
	gtk_widget_destroy(d);
	guardSaid(s->g->h);
	g_free(s->title);
	g_free(s->message);
	g_free(s);
	return G_SOURCE_REMOVE;
}

void guard_say(guard *g, const char *title, const char *message) {
	saying *s = g_new0(saying, 1);
	s->g = g;
	s->title = g_strdup(title);
	s->message = g_strdup(message);
	g_idle_add(say, s);
}
