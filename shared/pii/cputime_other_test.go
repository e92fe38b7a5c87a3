//go:build !unix

package pii

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
