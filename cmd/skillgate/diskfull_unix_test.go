//go:build unix

package main

import "syscall"

var errNoSpaceForTest error = syscall.ENOSPC
