// Package reap keeps the processes and workspaces skillgate starts from outliving it. Every child
// gets SKILLGATE_OWNER in its environment (internal/childenv; this process's id:
// its pid and, on Linux, its start time), so processes that left their process group (setsid)
// can still be found; on Linux direct children
// also get SIGKILL when skillgate dies (Pdeathsig). What a killed run left behind is removed by
// the next run: processes carrying a dead owner's id (Linux, from /proc) and workspaces named
// after a dead owner (skillgate-<owner>-*).
package reap

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// EnvVar carries the owner id into every child process.
const EnvVar = "SKILLGATE_OWNER"

var (
	ownerOnce sync.Once
	owner     string
)

// Owner is this process's id: "<pid>.<start time>" on Linux, "<pid>" elsewhere.
func Owner() string {
	ownerOnce.Do(func() {
		owner = strconv.Itoa(os.Getpid())
		if start := startTime(os.Getpid()); start != "" {
			owner += "." + start
		}
	})
	return owner
}

// WorkspacePrefix starts the names of this process's temporary workspaces.
func WorkspacePrefix() string { return "skillgate-" + Owner() + "-" }

// alive reports whether the owner id names a running process (the same one: on Linux its start
// time must match, so a reused pid does not count).
func alive(id string) bool {
	pidText, start, _ := strings.Cut(id, ".")
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 {
		return true // not an id of ours: leave it alone
	}
	if !pidAlive(pid) {
		return false
	}
	if start == "" {
		return true
	}
	now := startTime(pid)
	return now == "" || now == start
}

// ownerOf extracts the owner id from a workspace name skillgate-<owner>-<random>.
func ownerOf(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "skillgate-")
	if !ok {
		return "", false
	}
	id, _, ok := strings.Cut(rest, "-")
	if !ok || id == "" || id[0] < '0' || id[0] > '9' {
		return "", false
	}
	return id, true
}

// Sweep removes what dead runs left behind: their processes (Linux) and their workspaces in
// tmp (os.TempDir() when ""). It reports what it did to log.
func Sweep(tmp string, log io.Writer) {
	if log == nil {
		log = io.Discard
	}
	if n := killOrphans(); n > 0 {
		fmt.Fprintf(log, "skillgate: stopped %d process(es) left running by an earlier run that was killed\n", n)
	}
	if tmp == "" {
		tmp = os.TempDir()
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	removed := 0
	for _, e := range entries {
		id, ok := ownerOf(e.Name())
		if !ok || !e.IsDir() || id == Owner() || alive(id) {
			continue
		}
		if RemoveTree(filepath.Join(tmp, e.Name())) == nil {
			removed++
		}
	}
	if removed > 0 {
		fmt.Fprintf(log, "skillgate: removed %d workspace(s) left in %s by earlier runs that were killed\n", removed, tmp)
	}
}

// KillDescendants stops every process still carrying this process's owner id (Linux): children
// that left their process group and outlived their timeout.
func KillDescendants() int { return killOwnedBy(func(id string) bool { return id == Owner() }) }

func killOrphans() int {
	return killOwnedBy(func(id string) bool { return id != Owner() && !alive(id) })
}

// ChildEnv tags one child (and everything it starts) so that descendants that left its process
// group can be stopped with it (KillTagged).
const ChildEnv = "SKILLGATE_CHILD"

var childSeq atomic.Int64

// Tag gives cmd (before Start) a tag of its own in its environment and returns it. cmd.Env must
// already hold the child's environment (internal/childenv): a nil Env would leave the child
// nothing but the tag, never skillgate's own environment.
func Tag(cmd *exec.Cmd) string {
	tag := Owner() + "/" + strconv.FormatInt(childSeq.Add(1), 10)
	cmd.Env = append(cmd.Env, ChildEnv+"="+tag)
	return tag
}

// RemoveTree removes dir and everything below it. An agent may leave folders it made
// unreadable or read-only (chmod 000, 0500), which os.RemoveAll cannot empty: their owner's
// permissions are given back and the removal tried again. The error names what still could not
// be removed, so the caller can say so instead of leaving the folder behind silently.
func RemoveTree(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	openUp(dir)
	return os.RemoveAll(dir)
}

// openUp gives the owner every permission on dir and the folders below it (links are not
// followed: ReadDir reports a link as a link). Files need none to be unlinked.
func openUp(dir string) {
	_ = os.Chmod(dir, 0o700)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() {
			openUp(filepath.Join(dir, e.Name()))
		}
	}
}
