//go:build dev

package desktop

// DevBuild is true in `-tags dev` builds, which serve the frontend to a
// browser through Wails' dev server.
const DevBuild = true
