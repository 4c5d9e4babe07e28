//go:build !unix

package main

import (
	"errors"
	"syscall"
)

// diskFull reports whether err comes from a full disk: ERROR_DISK_FULL or ERROR_HANDLE_DISK_FULL
// (Go maps no Windows error to ENOSPC).
func diskFull(err error) bool {
	return errors.Is(err, syscall.Errno(112)) || errors.Is(err, syscall.Errno(39))
}
