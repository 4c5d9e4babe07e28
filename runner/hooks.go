package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/skillgate/skillgate/internal/childenv"
	"github.com/skillgate/skillgate/internal/procgroup"
	"github.com/skillgate/skillgate/spec"
)

// runHooks runs hook commands through `sh -c` in their working directory (docs/format.md#hooks). A
// hook whose exit code is not accepted is an error when error_on_fail is set, else a warning.
func (r *suiteRun) runHooks(ctx context.Context, hooks []*spec.Hook, point string, t *spec.Task) error {
	if r.opts.SkipHooks {
		return nil
	}
	for _, h := range hooks {
		cmd := exec.CommandContext(ctx, "sh", "-c", h.Command)
		cmd.Dir = h.WorkingDirectory
		if cmd.Dir == "" {
			cmd.Dir = r.suite.Dir
		}
		cmd.Env = childenv.For(cmd.Dir, "SKILLGATE_SUITE="+r.suite.Name, "SKILLGATE_SUITE_DIR="+r.suite.Dir, "SKILLGATE_HOOK="+point)
		if t != nil {
			cmd.Env = append(cmd.Env, "SKILLGATE_TASK_ID="+t.ID)
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		procgroup.Set(cmd)
		var err error
		// exec reports a missing working directory as a missing program ("fork/exec /bin/sh").
		if fi, statErr := os.Stat(cmd.Dir); statErr != nil || !fi.IsDir() {
			err = fmt.Errorf("its working directory %s is not a folder", cmd.Dir)
		} else {
			err = cmd.Run()
		}
		code := 0
		var exitErr *exec.ExitError
		switch {
		case errors.As(err, &exitErr):
			code = exitErr.ExitCode()
		case err != nil:
			code = -1
		}
		accepted := h.ExitCodes
		if len(accepted) == 0 {
			accepted = []int{0}
		}
		if err == nil || (code >= 0 && slices.Contains(accepted, code)) {
			continue
		}
		msg := fmt.Sprintf("%s: %s hook %q failed (exit %d)", h.Pos, point, h.Command, code)
		if code < 0 {
			msg = fmt.Sprintf("%s: %s hook %q failed: %v", h.Pos, point, h.Command, err)
		}
		if tail := strings.TrimSpace(out.String()); tail != "" {
			msg += ": " + lastLines(tail, 5)
		}
		if h.ErrorOnFail {
			return errors.New(msg)
		}
		fix := fmt.Sprintf("make the command succeed, or list exit code %d in exit_codes; set error_on_fail: true to stop on it", code)
		if code < 0 {
			fix = "correct the command or its working_directory; set error_on_fail: true to stop on it"
		}
		fmt.Fprintf(r.log, "warning: %s (fix: %s)\n", msg, fix)
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
