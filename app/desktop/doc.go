// Package desktop is the window's front end: the Desktop object whose
// methods Wails binds for the frontend (frontend/src/wailsjs/go/desktop),
// the workspace and agent it drives, and the event batching that carries
// the agent's events to the window. What it shares with the other front
// ends is in package adapter.
package desktop
