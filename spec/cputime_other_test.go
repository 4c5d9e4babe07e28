//go:build !unix

package spec

import "time"

func processCPU() time.Duration { return 0 }
