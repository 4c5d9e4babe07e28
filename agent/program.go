package agent

import "path/filepath"

// ProgramRunner is implemented by executors that run a program they can name (an agent CLI, the
// command executor's argv[0] or the configured path). The run cache hashes that program's
// content when it lies in the repository, so a changed agent script executes the runs again.
type ProgramRunner interface {
	// Program is the absolute path of the program a run would start, resolved as Run resolves it.
	Program() (string, error)
}

func (e *commandExecutor) Program() (string, error) {
	return programPath(commandExecutorName, e.path)
}

func (e *cliExecutor) Program() (string, error) { return programPath(e.spec.name, e.path) }

func programPath(executor, path string) (string, error) {
	resolved, err := resolveBinary(executor, path)
	if err != nil {
		return "", err
	}
	return filepath.Abs(resolved)
}
