//go:build !unix

package runcache

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs") }
