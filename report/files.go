package report

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/skillgate/skillgate/internal/atomicfile"
	"github.com/skillgate/skillgate/internal/redact"
)

// WriteDir writes every file report into dir: junit.xml, results.sarif, comment.md,
// summary.md and report.html. Each file is written atomically (a temporary file renamed into place),
// with secret values redacted (internal/redact). It returns the paths written.
//
// The five files are written in one pass over the tasks (visitTasks), each by its own
// goroutine as the tasks come, straight to its file: a results file OpenFile did not hold is
// read once more, and no file is ever held whole.
func WriteDir(dir string, in *Input) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	sts := states(in)
	names := []string{JUnitFile, SARIFFile, CommentFile, SummaryFile, HTMLFile}
	files := make([]*reportFile, len(names))
	for i, name := range names {
		f, err := createReportFile(filepath.Join(dir, name))
		if err != nil {
			for _, f := range files[:i] {
				f.abort()
			}
			return nil, fmt.Errorf("writing %s: %w", filepath.Join(dir, name), err)
		}
		files[i] = f
	}
	junit, err := newJUnitWriter(files[0], in, sts)
	if err != nil {
		for _, f := range files {
			f.abort()
		}
		return nil, err
	}
	comment, summary := newCommentReport(in, sts), newSummaryReport(in, sts)
	comment.w, summary.w = files[2], files[3]
	errs, err := visitTasks(sts, junit, newSARIFReport(files[1], in), comment, summary, newHTMLReport(files[4], in, sts))
	var paths []string
	var first error
	for i, f := range files {
		switch {
		case err != nil || first != nil:
			f.abort()
			if first == nil {
				first = err
			}
		case errs[i] != nil:
			f.abort()
			first = errs[i]
		default:
			if cerr := f.commit(); cerr != nil {
				first = fmt.Errorf("writing %s: %w", f.path, cerr)
				continue
			}
			paths = append(paths, f.path)
		}
	}
	return paths, first
}

// reportFile is a report being written: the renderer's buffered writes go through the
// redactor (which looks at large blocks, not each token) to a temporary file.
type reportFile struct {
	path string
	file *atomicfile.File
	red  *redact.Writer
	*bufio.Writer
}

func createReportFile(path string) (*reportFile, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	red := redact.NewWriter(f)
	return &reportFile{path: path, file: f, red: red, Writer: bufio.NewWriterSize(red, 64<<10)}, nil
}

var _ io.Writer = (*reportFile)(nil)

func (f *reportFile) commit() error {
	if err := f.Flush(); err != nil {
		f.file.Abort()
		return err
	}
	if err := f.red.Flush(); err != nil {
		f.file.Abort()
		return err
	}
	return f.file.Commit()
}

func (f *reportFile) abort() { f.file.Abort() }
