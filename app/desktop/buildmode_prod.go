//go:build !dev

package desktop

// DevBuild is false outside `-tags dev` builds (see buildmode_dev.go).
const DevBuild = false
