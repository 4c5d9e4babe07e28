package spec

import (
	"errors"
	"io/fs"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/skillgate/skillgate/internal/envmib"
	"github.com/skillgate/skillgate/internal/safepath"
)

// MaxFileSize is the largest suite file skillgate reads (eval.yaml, task files, tasks_from
// CSVs, fixtures): a file over it is a validation error, not gigabytes of memory. Environment
// variable SKILLGATE_MAX_FILE_MIB (whole MiB) overrides the default of 16 MiB.
var MaxFileSize = envmib.Bytes(MaxFileSizeEnv, 16<<20)

// MaxFileSizeEnv names the environment variable that sets MaxFileSize.
const MaxFileSizeEnv = "SKILLGATE_MAX_FILE_MIB"

// readSuiteFile reads a suite file that must stay inside root (symbolic links followed) and
// under MaxFileSize; root "" checks only the kind and the size.
func readSuiteFile(root, p string) ([]byte, error) {
	if root == "" {
		return safepath.ReadCapped(p, MaxFileSize)
	}
	return safepath.ReadFile(root, p, MaxFileSize)
}

// RefusedFix is the fix for a suite file safepath refused, or "" for other errors (a missing
// file). The files graders name (scripts, schemas, rubrics, snapshots) are suite files too.
func RefusedFix(err error) string {
	switch {
	case errors.Is(err, safepath.ErrOutside):
		return "suite files must stay inside their folder: copy the file there instead of linking to it"
	case errors.Is(err, safepath.ErrSpecial):
		return "name a regular file"
	case errors.Is(err, safepath.ErrTooBig):
		return "keep suite files under the limit (set " + MaxFileSizeEnv + " to raise it)"
	case errors.Is(err, fs.ErrNotExist):
		return ""
	}
	return ""
}

// orFix is fix, or dflt when fix is "".
func orFix(fix, dflt string) string {
	if fix != "" {
		return fix
	}
	return dflt
}

// refusedTask reports (as an error at the pattern) a task file named by a relative pattern whose
// symbolic links lead out of the suite's folder, or that is not a regular file.
func (l *loader) refusedTask(ctx *fileCtx, n *yaml.Node, file string) bool {
	_, err := safepath.Resolve(ctx.dir, file, false)
	fix := RefusedFix(err)
	if fix == "" {
		return false
	}
	l.add(Errorf(ctx.pos(n), ctx.key(), fix, "task file refused: %v", err))
	return true
}

// outside says why p (absolute, or relative to the working directory) is outside Options.Root,
// or "" when it is inside or there is no root. Links are followed when p exists.
func (l *loader) outside(p string) string {
	if l.opts.Root == "" {
		return ""
	}
	abs, err := filepath.Abs(p)
	if err != nil || !safepath.Inside(filepath.Clean(l.opts.Root), abs) {
		return "lies outside " + l.opts.Root + ", the folder this suite is confined to"
	}
	if _, err := safepath.Resolve(l.opts.Root, abs, true); errors.Is(err, safepath.ErrOutside) {
		return "leads outside " + l.opts.Root + ", the folder this suite is confined to"
	}
	return ""
}

// outsideRoot reports (as an error at n) a path outside Options.Root, which is then not read.
func (l *loader) outsideRoot(ctx *fileCtx, n *yaml.Node, key, what, p string) bool {
	why := l.outside(p)
	if why != "" {
		l.add(Errorf(ctx.pos(n), key, "name a path inside "+l.opts.Root, "%s %s %s", what, p, why))
	}
	return why != ""
}

// resolveIn checks that p (a file or folder) stays inside root with its links followed.
func resolveIn(root, p string) error {
	_, err := safepath.Resolve(root, p, true)
	return err
}
