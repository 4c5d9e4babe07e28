//go:build unix

package runcache

import (
	"os"
	"syscall"
)

// openNoFollow opens path for reading without following a final symbolic link and without
// blocking on a FIFO (O_NONBLOCK: the caller refuses anything but a regular file).
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
