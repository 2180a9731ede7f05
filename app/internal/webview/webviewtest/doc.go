// Package webviewtest is a window like the one Wails makes (a GTK window
// holding a WebKitWebView whose "external" script messages a handler
// receives), for tests of package webview on a real WebKit: its pages are
// served from the wails: scheme by the test, and the messages that reach
// the stand-in of Wails' handler are reported. Like the guard, it is
// built with the desktop or dev tag (make test-journey runs its test).
package webviewtest
