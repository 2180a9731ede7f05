// Package app holds the front ends over the agent: the desktop window (Wails
// bindings that translate between the frontend and package agent) and the
// command line with its terminal mode. It stays thin: domain logic belongs in
// package agent and below.
package app
