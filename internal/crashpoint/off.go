//go:build !crashtest

package crashpoint

// Hit marks a kill point.
func Hit(string) {}

// Tear returns nil, or in a crash test a first part of data to write before
// Die, to leave a torn write behind.
func Tear(string, []byte) []byte { return nil }

// Die kills the process in a crash test; it does nothing otherwise.
func Die() {}
