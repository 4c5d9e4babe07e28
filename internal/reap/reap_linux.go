//go:build linux

package reap

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// SetDeathSignal makes the kernel kill a child when skillgate dies, however it dies.
func SetDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }

func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err == nil || errors.Is(err, syscall.EPERM) {
		return !zombie(pid)
	}
	return false
}

func zombie(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, after, ok := bytes.Cut(data, []byte(") "))
	return ok && len(after) > 0 && after[0] == 'Z'
}

// startTime is field 22 of /proc/<pid>/stat (clock ticks since boot), or "".
func startTime(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 20 {
		return ""
	}
	return fields[19]
}

// KillTagged stops every process carrying a child's tag (Tag): the ones that called setsid and
// so escaped the kill of the child's process group.
func KillTagged(tag string) int {
	return killByEnv(ChildEnv, func(v string) bool { return v == tag })
}

func killOwnedBy(match func(id string) bool) int { return killByEnv(EnvVar, match) }

// killByEnv sends SIGKILL to every process (of this user; others cannot be read) whose
// environment variable name has a value that match accepts.
func killByEnv(name string, match func(id string) bool) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	self := os.Getpid()
	key := []byte(name + "=")
	n := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if id, ok := bytes.CutPrefix(kv, key); ok {
				if match(string(id)) && !zombie(pid) && syscall.Kill(pid, syscall.SIGKILL) == nil {
					n++
				}
				break
			}
		}
	}
	return n
}
