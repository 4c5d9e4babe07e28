package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillgate/skillgate/internal/childenv"
	"github.com/skillgate/skillgate/internal/procgroup"
	"github.com/skillgate/skillgate/spec"
)

// Workspace set-up and grading environments of Vally specs (docs/vally.md#environment): the
// environment's commands run in the workspace before the agent; a grading environment's files
// and commands come after it, before the graders. What they create is part of the workspace the
// agent is given (or the graders read), not a change the agent made.

// maxSetupOutput bounds how much of a failing command's output its error quotes.
const maxSetupOutput = 2000

// runSetup runs set-up commands in order in the workspace through `sh -c`, each bounded by its
// own timeout or else limit. The first that fails stops the run with an error that names it.
// Like hooks, they do not run when Options.SkipHooks is set.
func (r *suiteRun) runSetup(ctx context.Context, t *spec.Task, ws *workspace, cmds []*spec.SetupCommand, limit time.Duration, what string) error {
	if r.opts.SkipHooks {
		return nil // the fork-safe report mode executes nothing from the suite
	}
	for _, c := range cmds {
		timeout := limit
		if c.TimeoutSeconds > 0 {
			timeout = time.Duration(c.TimeoutSeconds) * time.Second
		}
		if err := runSetupCommand(ctx, c.Command, ws.dir, t, r.suite, timeout); err != nil {
			return fmt.Errorf("%s command %q (%s) failed: %w", what, c.Command, c.Pos, err)
		}
	}
	return nil
}

func runSetupCommand(ctx context.Context, command, dir string, t *spec.Task, s *spec.Suite, timeout time.Duration) error {
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, "sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = childenv.For(dir, "SKILLGATE_SUITE="+s.Name, "SKILLGATE_SUITE_DIR="+s.Dir, "SKILLGATE_TASK_ID="+t.ID, "SKILLGATE_WORKSPACE_DIR="+dir)
	for k, v := range t.Environment {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out := &tailWriter{limit: maxSetupOutput}
	cmd.Stdout, cmd.Stderr = out, out
	procgroup.Set(cmd)
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	tail := strings.TrimSpace(out.String())
	var exitErr *exec.ExitError
	switch {
	case errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		err = fmt.Errorf("timed out after %s", timeout)
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &exitErr) && exitErr.ExitCode() == 127:
		err = errors.New("exit 127: a program it runs is not installed on this machine")
	case errors.As(err, &exitErr):
		err = fmt.Errorf("exit %d", exitErr.ExitCode())
	case err != nil:
	default:
		return nil
	}
	if tail != "" {
		err = fmt.Errorf("%w: %s", err, lastLines(tail, 5))
	}
	return err
}

// tailWriter keeps the last limit bytes written.
type tailWriter struct {
	buf   []byte
	limit int
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	if len(w.buf) > w.limit {
		w.buf = w.buf[len(w.buf)-w.limit:]
	}
	return len(p), nil
}

func (w *tailWriter) String() string { return string(w.buf) }

// adoptWorkspace records every file of the workspace not yet recorded as given to the agent,
// so change detection counts only what the agent does afterwards (set-up commands' output, a
// clone, a build tree).
func (ws *workspace) adoptWorkspace() error {
	if ws.dir == "" {
		return nil
	}
	if ws.written == nil {
		ws.written = map[string]writtenInput{}
	}
	return filepath.WalkDir(ws.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(ws.dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == ".git" || agentDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if _, done := ws.written[rel]; done {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			return nil
		}
		sum, err := fileSum(p)
		if err != nil {
			return nil
		}
		ws.written[rel] = writtenInput{size: info.Size(), mtime: info.ModTime().UnixNano(), sum: sum}
		ws.inputs = append(ws.inputs, rel)
		return nil
	})
}

// copyGradingFiles copies a grading environment's files into the workspace after the agent.
func (r *suiteRun) copyGradingFiles(ws *workspace, files []*spec.InputFile) error {
	for _, f := range files {
		if f.Missing != "" {
			return errors.New(f.Missing)
		}
		dest, err := inside(ws.dir, f.Path)
		if err != nil {
			return err
		}
		stored, err := r.inputs.get(f)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return err
		}
		if _, err := r.inputs.copyTo(stored, dest); err != nil {
			return err
		}
	}
	return nil
}
