//go:build !unix

package ioerr

import (
	"errors"
	"syscall"
)

// DiskFull reports whether err comes from a full disk: ERROR_DISK_FULL or ERROR_HANDLE_DISK_FULL
// (Go maps no Windows error to ENOSPC).
func DiskFull(err error) bool {
	return errors.Is(err, syscall.Errno(112)) || errors.Is(err, syscall.Errno(39))
}
