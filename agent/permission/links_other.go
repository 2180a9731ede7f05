//go:build !unix

package permission

import "io/fs"

// links returns 1: hard links are not told apart on this platform.
func links(fs.FileInfo) uint64 { return 1 }

// fileID is not available on this platform; folder loops are bounded by
// the walk's budget.
func fileID(fs.FileInfo) ([2]uint64, bool) { return [2]uint64{}, false }
