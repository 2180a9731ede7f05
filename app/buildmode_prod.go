//go:build !dev

package app

const devBuild = false
