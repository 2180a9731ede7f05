//go:build tools

// Package tools pins the Wails CLI as a dependency of this wrapper module.
package tools

import _ "github.com/wailsapp/wails/v2/cmd/wails"
