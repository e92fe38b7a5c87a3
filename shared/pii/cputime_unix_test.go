//go:build unix

package pii

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used: on a shared machine a
// benchmark's wall time measures the neighbours as much as the code.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
