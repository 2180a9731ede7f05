package checkpoint

import (
	"time"

	"golang.org/x/sys/unix"
)

// timestampResolution returns how fine the file system holding dir keeps
// file times: the kernel's clock tick (at most 10 ms) for the common Linux
// file systems, with a margin, else coarseResolution.
func timestampResolution(dir string) int64 {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return coarseResolution
	}
	switch uint64(st.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC,
		unix.OVERLAYFS_SUPER_MAGIC, unix.F2FS_SUPER_MAGIC, unix.BCACHEFS_SUPER_MAGIC, 0x2fc12fc1 /* zfs */ :
		return int64(50 * time.Millisecond)
	}
	return coarseResolution
}
