//go:build !unix

package opener

import (
	"errors"
	"io/fs"
)

// modeBelow is not supported here: files are only handed over where
// they can be reached without following links.
func modeBelow(root, rel string) (fs.FileMode, error) {
	return 0, errors.New("opening files is not supported on this system")
}
