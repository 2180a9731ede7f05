//go:build dev

package app

// devBuild is true in `-tags dev` builds, which serve the frontend to a
// browser through Wails' dev server.
const devBuild = true
