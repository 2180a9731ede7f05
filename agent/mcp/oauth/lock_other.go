//go:build !unix

package oauth

import "context"

// lockFile is a no-op where flock is not available.
func lockFile(context.Context, string, string) (func(), error) { return func() {}, nil }
