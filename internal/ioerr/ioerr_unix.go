//go:build unix

package ioerr

import (
	"errors"
	"syscall"
)

// DiskFull reports whether err comes from a device without space or a user over quota.
func DiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
