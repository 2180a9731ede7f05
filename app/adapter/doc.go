// Package adapter is what every front end over the agent shares: the
// window (package desktop), the terminal (package terminal) and any front
// end that joins them. It holds the build and streams a command is handed,
// the command-line plumbing (usage errors, flags, exit statuses), the one
// key store over the app's folders, opening a workspace with it, the
// conversation open in another freeact process, exports, and the MCP form
// fields. It knows nothing of how a front end shows things.
package adapter
