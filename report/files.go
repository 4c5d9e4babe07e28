package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillgate/skillgate/internal/atomicfile"
)

// WriteDir writes every file report into dir: junit.xml, results.sarif, comment.md,
// summary.md and report.html. Each file is written atomically (a temporary file renamed into place). It returns
// the paths written.
func WriteDir(dir string, in *Input) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	write := func(name string, data []byte) error {
		p := filepath.Join(dir, name)
		if err := atomicfile.WriteBytes(p, data); err != nil {
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
	var page bytes.Buffer
	if err := WriteHTML(&page, in); err != nil {
		return paths, err
	}
	if err := write(HTMLFile, page.Bytes()); err != nil {
		return paths, err
	}
	return paths, nil
}
