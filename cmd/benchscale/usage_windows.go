//go:build windows

package main

import (
	"os"
	"syscall"
	"time"
)

// usage returns the CPU time (user + kernel) of the exited process ps, from
// its process times. Windows keeps no peak memory once a process has
// exited (GetProcessMemoryInfo needs it running), so rss is 0, which the
// report prints as unknown.
func usage(ps *os.ProcessState) (cpu time.Duration, rss int64) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0, 0
	}
	return filetime(ru.UserTime) + filetime(ru.KernelTime), 0
}

// filetime is a duration held as a FILETIME (100 ns units).
func filetime(f syscall.Filetime) time.Duration {
	return time.Duration(int64(f.HighDateTime)<<32|int64(f.LowDateTime)) * 100
}
