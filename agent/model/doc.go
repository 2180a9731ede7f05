// Package model owns the provider-neutral conversation: messages and their
// parts, tool declarations, the streaming Model interface, model strings,
// settings and retries. Provider clients live in sub-packages.
package model
