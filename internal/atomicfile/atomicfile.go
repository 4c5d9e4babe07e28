// Package atomicfile writes files so that readers never see a half-written file and an
// interrupted write never destroys the previous one: a temporary file in the same folder,
// renamed into place.
package atomicfile

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// Write creates path (and its folder) with the content fn writes, mode 0644. fn's writes are
// buffered.
func Write(path string, fn func(w io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// WriteBytes creates path with data.
func WriteBytes(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.tmp.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// File is a file being written in place of another: what is written goes to a temporary file
// beside it (buffered), which Commit renames into place and Abort removes.
type File struct {
	tmp  *os.File
	w    *bufio.Writer
	path string
}

// Create starts writing path (and creates its folder).
func Create(path string) (*File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, err
	}
	return &File{tmp: tmp, path: path}, nil
}

func (f *File) Write(p []byte) (int, error) {
	if f.w == nil {
		f.w = bufio.NewWriterSize(f.tmp, 64<<10)
	}
	return f.w.Write(p)
}

// Commit puts the file in place, mode 0644; on an error the previous file is left as it was.
func (f *File) Commit() error {
	fail := func(err error) error {
		f.Abort()
		return err
	}
	if f.w != nil {
		if err := f.w.Flush(); err != nil {
			return fail(err)
		}
	}
	if err := f.tmp.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := f.tmp.Close(); err != nil {
		os.Remove(f.tmp.Name())
		return err
	}
	if err := os.Rename(f.tmp.Name(), f.path); err != nil {
		os.Remove(f.tmp.Name())
		return err
	}
	return nil
}

// Abort removes the temporary file; the previous file is left as it was.
func (f *File) Abort() {
	f.tmp.Close()
	os.Remove(f.tmp.Name())
}
