//go:build !unix

package runner

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs") }
