// Package safepath resolves the files a suite names (fixtures, snapshots, schemas, scripts, task
// files) with symbolic links followed, and refuses those that leave their allowed root or are
// not regular files: a link to /proc/self/environ must not put the process environment into a
// prompt, and reading a FIFO or a device would hang or never end.
package safepath

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Reasons a path is refused.
var (
	ErrOutside = errors.New("leaves its folder")
	ErrSpecial = errors.New("is not a regular file")
	ErrTooBig  = errors.New("is over the size limit")
)

// Error is a refused path. It wraps ErrOutside, ErrSpecial, ErrTooBig or the error of the file
// system (fs.ErrNotExist, …).
type Error struct {
	Path   string // as given
	Target string // where its links lead, when they matter
	Root   string
	Limit  int64 // ErrTooBig: the limit in bytes
	Err    error
}

func (e *Error) Error() string {
	switch {
	case errors.Is(e.Err, ErrOutside):
		return fmt.Sprintf("%s leads through a symbolic link to %s, outside %s", e.Path, e.Target, e.Root)
	case errors.Is(e.Err, ErrSpecial):
		return fmt.Sprintf("%s is not a regular file (%s)", e.Path, e.Target)
	case errors.Is(e.Err, ErrTooBig):
		return fmt.Sprintf("%s is over the size limit of %s", e.Path, FormatSize(e.Limit))
	}
	var pe *fs.PathError
	if errors.As(e.Err, &pe) {
		return fmt.Sprintf("%s: %v", e.Path, pe.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Resolve returns the real path of p (absolute, or relative to the working directory) after
// following every symbolic link, provided it stays inside root (itself resolved) and is a
// regular file, or a folder when dirOK. The error says which rule p broke.
func Resolve(root, p string, dirOK bool) (string, error) {
	realRoot, err := resolveRoot(root)
	if err != nil {
		return "", &Error{Path: p, Root: root, Err: err}
	}
	real, fi, ok := resolveBelow(root, realRoot, p)
	if !ok {
		if real, err = filepath.EvalSymlinks(p); err != nil {
			return "", &Error{Path: p, Root: root, Err: err}
		}
		if real, err = filepath.Abs(real); err != nil {
			return "", &Error{Path: p, Root: root, Err: err}
		}
		if !Inside(realRoot, real) {
			return "", &Error{Path: p, Target: real, Root: root, Err: ErrOutside}
		}
		if fi, err = os.Stat(real); err != nil {
			return "", &Error{Path: p, Root: root, Err: err}
		}
	}
	if kind := special(fi, dirOK); kind != "" {
		return "", &Error{Path: p, Target: kind, Root: root, Err: ErrSpecial}
	}
	return real, nil
}

// resolvedRoots caches the real path of absolute roots: a suite's files are resolved against
// the same folder hundreds of times, and resolving it is a system call per path element.
var resolvedRoots sync.Map // absolute root → real path

func resolveRoot(root string) (string, error) {
	if filepath.IsAbs(root) {
		if real, ok := resolvedRoots.Load(root); ok {
			return real.(string), nil
		}
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	if real, err = filepath.Abs(real); err != nil {
		return "", err
	}
	if filepath.IsAbs(root) {
		resolvedRoots.Store(root, real)
	}
	return real, nil
}

// resolveBelow is Resolve's fast path for the common case, an absolute p written below an
// absolute root with no symbolic link after the root: one Lstat per element below the root.
// ok is false when the slow path must decide (a link, a relative path, anything unusual).
func resolveBelow(root, realRoot, p string) (real string, fi fs.FileInfo, ok bool) {
	if !filepath.IsAbs(root) || !filepath.IsAbs(p) {
		return "", nil, false
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", nil, false
	}
	real = realRoot
	if rel == "." {
		fi, err = os.Stat(real)
		return real, fi, err == nil
	}
	for _, elem := range strings.Split(rel, string(filepath.Separator)) {
		real = filepath.Join(real, elem)
		if fi, err = os.Lstat(real); err != nil || fi.Mode()&fs.ModeSymlink != 0 {
			return "", nil, false
		}
	}
	return real, fi, true
}

// special names the kind of a file that is neither regular nor (when dirOK) a folder, or "".
func special(fi fs.FileInfo, dirOK bool) string {
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		if dirOK {
			return ""
		}
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// Inside reports whether the cleaned absolute path p is root or below it.
func Inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel))
}

// ReadFile reads p after Resolve(root, p, false), refusing a file larger than limit bytes
// (limit ≤ 0: no limit). The size is checked again while reading: a file that grows is cut at
// limit+1 bytes and refused.
func ReadFile(root, p string, limit int64) ([]byte, error) {
	real, err := Resolve(root, p, false)
	if err != nil {
		return nil, err
	}
	return readCapped(p, real, limit)
}

// ReadCapped reads a file (no root) with the size limit of ReadFile, refusing special files.
func ReadCapped(p string, limit int64) ([]byte, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, &Error{Path: p, Err: err}
	}
	if kind := special(fi, false); kind != "" {
		return nil, &Error{Path: p, Target: kind, Err: ErrSpecial}
	}
	return readCapped(p, p, limit)
}

func readCapped(p, real string, limit int64) ([]byte, error) {
	f, err := os.Open(real)
	if err != nil {
		return nil, &Error{Path: p, Err: err}
	}
	defer f.Close()
	var r io.Reader = f
	if limit > 0 {
		if fi, err := f.Stat(); err == nil && fi.Size() > limit {
			return nil, &Error{Path: p, Limit: limit, Err: ErrTooBig}
		}
		r = io.LimitReader(f, limit+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &Error{Path: p, Err: err}
	}
	if limit > 0 && int64(len(data)) > limit {
		return nil, &Error{Path: p, Limit: limit, Err: ErrTooBig}
	}
	return data, nil
}

// FormatSize writes a byte count as people read limits: "16 MiB", "512 KiB", "100 bytes".
func FormatSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
