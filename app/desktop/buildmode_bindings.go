//go:build bindings

package desktop

// generatingBindings is true when `wails generate module` builds the binary
// only to write the JavaScript bindings; no window opens then.
const generatingBindings = true
