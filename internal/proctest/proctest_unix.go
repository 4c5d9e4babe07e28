//go:build unix

package proctest

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Gone reports whether pid has exited. A zombie nobody has reaped yet counts: it no longer runs.
func Gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses and may hold any byte.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}

// Kill sends pid SIGKILL.
func Kill(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
