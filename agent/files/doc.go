// Package files owns the built-in filesystem tools the model can call:
// reading text, reading images, writing and editing files. It resolves the
// paths the model sends against the workspace, tells callers whether a path
// stays inside it (symlinks resolved), declares the tools' parameters, and
// executes calls the agent has already approved. Approval itself is the
// agent's business; this package only refuses paths outside the workspace
// for calls that were not approved.
//
// It also exports the image downscaling used for the model (at most 1024 px a
// side) so the desktop app can apply the same rule to attachments.
package files
