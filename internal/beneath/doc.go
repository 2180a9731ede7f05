// Package beneath owns changing files below one folder, the root, so that
// nothing outside it can be reached whatever is swapped in meanwhile: every
// path is relative to the root and walked one component at a time from the
// root's open descriptor without following symbolic links (openat with
// O_NOFOLLOW|O_DIRECTORY), and the file is then written, linked, removed or
// chmod-ed relative to the folder reached (renameat, symlinkat, unlinkat,
// fchmod of a descriptor opened without following). A folder swapped for a
// symbolic link after a plan was made is refused with ErrLinkSwapped; a
// path with "..", "." or an empty component is refused with ErrNotBeneath.
//
// Checkpoint reverts use it: a revert's paths come from records, but what
// is at those paths now is the doing of code the revert does not trust.
package beneath

import "errors"

// ErrNotBeneath is wrapped by the error for a path that is not a plain
// relative path below the root.
var ErrNotBeneath = errors.New("not a path below the root")

// ErrLinkSwapped is wrapped by the error for a path in which a symbolic
// link stands where a folder is needed.
var ErrLinkSwapped = errors.New("a symbolic link stands where a folder is needed; nothing was done there")
