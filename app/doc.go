// Package app is the command line: Main picks the front end a command
// runs. The front ends sit side by side, each in its own package, over
// one adapter layer:
//
//   - app/desktop: the window, the Desktop object whose methods Wails
//     binds for the frontend, and its event batching;
//   - app/terminal: the terminal, `freeact run` (with --json), and the
//     commands init, export, mcp and checkpoints;
//   - app/adapter: what every front end shares over the agent: the build
//     and streams a command is handed, usage errors and exit statuses, the
//     version, the one key store and workspace opener, a conversation open
//     in another freeact process, exports, MCP form fields.
//
// A front end imports the adapter, never another front end. All stay thin:
// domain logic belongs in package agent and below.
package app
