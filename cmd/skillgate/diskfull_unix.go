//go:build unix

package main

import (
	"errors"
	"syscall"
)

// diskFull reports whether err comes from a device without space or a user over quota.
func diskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
