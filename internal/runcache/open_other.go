//go:build !unix

package runcache

import (
	"fmt"
	"os"
)

// openNoFollow opens path for reading when it is a regular file (checked before opening: there
// are no FIFOs to block on here).
func openNoFollow(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("runcache: %s is not a regular file", path)
	}
	return os.Open(path)
}
