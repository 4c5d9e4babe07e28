// Package envmib reads the size limits users set through environment variables in whole MiB
// (SKILLGATE_MAX_FILE_MIB, SKILLGATE_MAX_AGENT_OUTPUT_MIB, SKILLGATE_CODE_MEMORY_MIB), so every
// one accepts the same values and says the same when it ignores one.
package envmib

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// most is the largest size accepted, in MiB (1 TiB).
const most = 1 << 20

var errRange = errors.New("want a whole number of MiB between 1 and " + strconv.Itoa(most))

// Parse reads a whole number of MiB between 1 and 1048576 (spaces around it allowed) and
// returns it in bytes.
func Parse(v string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 1 || n > most {
		return 0, errRange
	}
	return n << 20, nil
}

// Bytes is the size the environment variable name sets, in bytes, or def where it is unset. A
// value Parse refuses is ignored with a warning on standard error: a typo must not stop a run.
func Bytes(name string, def int64) int64 { return bytesFrom(os.Stderr, name, def) }

func bytesFrom(warn io.Writer, name string, def int64) int64 {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := Parse(v)
	if err != nil {
		fmt.Fprintf(warn, "skillgate: warning: %s=%q ignored: %v (using %d MiB)\n", name, v, err, def>>20)
		return def
	}
	return n
}
