package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/skillgate/skillgate/internal/atomicfile"
	"github.com/skillgate/skillgate/internal/redact"
)

// WriteDir writes every file report into dir: junit.xml, results.sarif, comment.md,
// summary.md and report.html. Each file is written atomically (a temporary file renamed into place),
// with secret values redacted (internal/redact). It returns the paths written.
func WriteDir(dir string, in *Input) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// The renderers only read in; rendering them side by side halves the wall time of a small
	// run's reports on two cores.
	files := []struct {
		name   string
		render func(w *bytes.Buffer) error
	}{
		{JUnitFile, func(w *bytes.Buffer) error { return WriteJUnit(w, in) }},
		{SARIFFile, func(w *bytes.Buffer) error { return WriteSARIF(w, in) }},
		{CommentFile, func(w *bytes.Buffer) error { _, err := w.WriteString(Comment(in)); return err }},
		{SummaryFile, func(w *bytes.Buffer) error { _, err := w.WriteString(Summary(in)); return err }},
		{HTMLFile, func(w *bytes.Buffer) error { return WriteHTML(w, in) }},
	}
	bufs := make([]bytes.Buffer, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Go(func() { errs[i] = f.render(&bufs[i]) })
	}
	wg.Wait()
	var paths []string
	for i, f := range files {
		if errs[i] != nil {
			return paths, errs[i]
		}
		p := filepath.Join(dir, f.name)
		if err := atomicfile.WriteBytes(p, redact.Bytes(bufs[i].Bytes())); err != nil {
			return paths, fmt.Errorf("writing %s: %w", p, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}
