package beneath

import "strings"

// isTemp reports whether n is a name internal/atomicfile gives a
// temporary file while it writes name: .NAME.<random>.tmp.
func isTemp(n, name string) bool {
	mid, ok := strings.CutPrefix(n, "."+name+".")
	if !ok {
		return false
	}
	r, ok := strings.CutSuffix(mid, ".tmp")
	return ok && r != ""
}
