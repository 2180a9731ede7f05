// Package opener owns handing a URL or a file to the desktop: the system
// browser for links (MCP sign-in, URL-mode forms, links in the window),
// the default application for a saved file, the file manager for Show in
// folder. Nothing else in the app starts xdg-open or $BROWSER.
//
// A URL is parsed and allowed only as https, or as http to a loopback host
// (127.0.0.0/8, ::1, localhost); it carries no user name, and its host is
// given in ASCII (punycode for an international name) both to the browser
// and to whoever shows it, so a look-alike host is seen for what it is. A
// file is allowed only below one of the roots it is given (the workspace,
// its images folder), reached from the root without following a symbolic
// link, a regular file without an executable bit, of a type on a short
// list of documents, data, images and media (never programs, scripts or
// launchers). What is handed to the program is always an absolute URL
// beginning with its scheme or an absolute path beginning with "/", so it
// cannot be read as an option, and the program is started directly (no
// shell). Its exit status is awaited for a bounded time, so a program that
// cannot open the target is reported, with what to do instead.
package opener
