//go:build unix

package permission

import (
	"io/fs"
	"syscall"
)

// links returns the number of hard links of a file.
func links(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// fileID returns a file's device and inode.
func fileID(info fs.FileInfo) ([2]uint64, bool) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
	}
	return [2]uint64{}, false
}
