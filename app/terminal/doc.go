// Package terminal is the terminal front end: `freeact run` (interactive,
// --prompt and the --json protocol), and the commands init, export, mcp
// and checkpoints. What it shares with the other front ends is in package
// adapter.
package terminal
