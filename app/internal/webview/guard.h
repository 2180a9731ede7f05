#include <stdint.h>
#include <gtk/gtk.h>
#include <webkit2/webkit2.h>

typedef struct guard guard;

guard *guard_new(uintptr_t h);
void guard_attach(guard *g);
void guard_reload(guard *g);
void guard_say(guard *g, const char *title, const char *message);
