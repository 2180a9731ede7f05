#include <stdlib.h>
#include <gtk/gtk.h>
#include <webkit2/webkit2.h>

int fake_init(void);
void fake_window(void);
void fake_load(const char *uri);
void fake_terminate(void);
void fake_main(void);
