// Package nofollow owns reaching a file through a path whose symbolic
// links were resolved already (and checked, or approved) without following
// any link found there now: the folder is opened one component at a time
// with O_NOFOLLOW, and the file is opened, examined, renamed or removed
// relative to that folder. A link swapped in after the check is reported as
// ErrLinkSwapped instead of being followed.
package nofollow

import "errors"

// ErrLinkSwapped is wrapped by errors for a path in which a symbolic link
// turned up after the path was resolved.
var ErrLinkSwapped = errors.New("a symbolic link replaced part of the path after it was checked; nothing was done")

// ErrNotRegular is wrapped by errors for a path that is not a regular file
// where one is needed (a folder, a device, a named pipe...), found when
// it is opened or replaced.
var ErrNotRegular = errors.New("not a regular file")
