//go:build !unix

package results

import "time"

func processCPU() time.Duration { return 0 }
