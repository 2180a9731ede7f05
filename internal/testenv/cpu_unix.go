//go:build unix

package testenv

import (
	"syscall"
	"time"
)

// ProcessCPU returns the processor time (user and system) this process has
// used so far, for benchmarks that report the host's work per unit (the
// kernel and server are other processes); 0 where it cannot be read.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
