package graders

import (
	"errors"
	"path/filepath"

	"github.com/skillgate/skillgate/internal/safepath"
	"github.com/skillgate/skillgate/spec"
)

// Files a grader declaration names (schema files, scripts, rubric files, snapshots) are read
// with symbolic links followed, and must stay inside the folder they are written in: the suite's
// folder for a path inside it, else the declaring file's folder, else the folder of the path
// as written (an explicit `../shared/schema.json` is allowed; a link that leads elsewhere is
// not). Special files (FIFOs, devices) are refused.

// fileRoot is the folder path must stay inside.
func fileRoot(def *spec.Grader, env *Env, path string) string {
	path = absPath(path)
	if env != nil && env.Suite != nil && env.Suite.Dir != "" {
		if dir := absPath(env.Suite.Dir); safepath.Inside(dir, path) {
			return dir
		}
	}
	if dir := absDir(def.Dir); safepath.Inside(dir, path) {
		return dir
	}
	return filepath.Dir(path)
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// readDeclared reads a file a declaration names, within fileRoot and spec.MaxFileSize.
func readDeclared(def *spec.Grader, env *Env, path string) ([]byte, error) {
	return safepath.ReadFile(fileRoot(def, env, path), path, spec.MaxFileSize)
}

// resolveDeclared checks a file (or folder) a declaration names against fileRoot.
func resolveDeclared(def *spec.Grader, env *Env, path string) error {
	_, err := safepath.Resolve(fileRoot(def, env, path), path, true)
	return err
}

func isSpecialFile(err error) bool { return errors.Is(err, safepath.ErrSpecial) }

// resolveIn checks a file against an explicit root (snapshots: the context dir).
func resolveIn(root, path string) error {
	_, err := safepath.Resolve(root, path, false)
	return err
}

// readIn reads a file that must stay inside root, within spec.MaxFileSize.
func readIn(root, path string) ([]byte, error) {
	return safepath.ReadFile(root, path, spec.MaxFileSize)
}
