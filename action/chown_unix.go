//go:build unix

package action

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// chownToWorkspace gives the files the action wrote to the owner of the workspace. The container
// runs as root, and later steps run as the runner's user, who could not otherwise remove or
// rewrite them (e.g. a second run of the action, or a cache step). Best effort: it only acts
// when running as root and the owners differ.
func chownToWorkspace(dir, workspace string) {
	if os.Geteuid() != 0 {
		return
	}
	info, err := os.Stat(workspace)
	if err != nil {
		return
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st.Uid == 0 {
		return
	}
	uid, gid := int(st.Uid), int(st.Gid)
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		os.Lchown(path, uid, gid)
		return nil
	})
}
