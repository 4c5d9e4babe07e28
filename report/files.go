package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// WriteDir writes every file report into dir: junit.xml, results.sarif, comment.md and
// summary.md. Each file is written atomically (a temporary file renamed into place). It returns
// the paths written.
func WriteDir(dir string, in *Input) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	write := func(name string, data []byte) error {
		p := filepath.Join(dir, name)
		if err := writeAtomic(p, data); err != nil {
			return fmt.Errorf("writing %s: %w", p, err)
		}
		paths = append(paths, p)
		return nil
	}
	var junit, sarif bytes.Buffer
	if err := WriteJUnit(&junit, in); err != nil {
		return paths, err
	}
	if err := write(JUnitFile, junit.Bytes()); err != nil {
		return paths, err
	}
	if err := WriteSARIF(&sarif, in); err != nil {
		return paths, err
	}
	if err := write(SARIFFile, sarif.Bytes()); err != nil {
		return paths, err
	}
	if err := write(CommentFile, []byte(Comment(in))); err != nil {
		return paths, err
	}
	if err := write(SummaryFile, []byte(Summary(in))); err != nil {
		return paths, err
	}
	return paths, nil
}

func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
