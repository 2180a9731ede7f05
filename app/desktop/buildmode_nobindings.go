//go:build !bindings

package desktop

const generatingBindings = false
