package remote

import (
	"path/filepath"
	"strings"
)

// LocalDir is the folder on this machine that a kernel's current folder
// dir stands for, local being the workspace there: dir itself for a local
// kernel (r is nil); for a remote one, the same place below local when
// dir lies below the remote workspace, else the workspace (""). A
// relative or empty dir is the workspace too.
func (r *Workspace) LocalDir(dir, local string) string {
	if dir == "" || !filepath.IsAbs(dir) {
		return ""
	}
	if r == nil {
		return filepath.Clean(dir)
	}
	root := r.Root()
	if root == "" {
		return ""
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return ""
	}
	return filepath.Join(local, rel)
}
