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
	return write(path, func(f io.Writer) error {
		w := bufio.NewWriterSize(f, 64<<10)
		if err := fn(w); err != nil {
			return err
		}
		return w.Flush()
	})
}

// WriteBytes creates path with data.
func WriteBytes(path string, data []byte) error {
	return write(path, func(f io.Writer) error {
		_, err := f.Write(data)
		return err
	})
}

func write(path string, fn func(f io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := fn(tmp); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
