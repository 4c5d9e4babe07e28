package graders

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func init() {
	Register(&Type{
		Name:           "program",
		Summary:        "Runs a command with the agent's output on stdin in the suite folder (WAZA_WORKSPACE_DIR names the workspace): exit 0 passes, unless stdout is a JSON grader result, whose score and verdict are used.",
		Config:         newConfig[programConfig],
		Compile:        compileProgram,
		Executes:       true,
		ReadsWorkspace: true,
	})
}

type programConfig struct {
	Command string   `yaml:"command"`
	Args    []string `yaml:"args"`
	Timeout *float64 `yaml:"timeout"`
}

type programGrader struct {
	def     *spec.Grader
	command string // resolved path
	display string // as written
	args    []string
	dir     string
	timeout time.Duration
}

// maxFeedbackStdout bounds the stdout kept in feedback and details.
const maxFeedbackStdout = 4000

func compileProgram(def *spec.Grader, env *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[programConfig](def)
	timeout, diags := runnable(def, "command", cfg.Command, cfg.Timeout)
	if diags != nil {
		return nil, diags
	}
	dir := suiteDir(def, env)
	pos := def.ConfigAt("command")
	command := cfg.Command
	if strings.ContainsRune(command, '/') || strings.ContainsRune(command, filepath.Separator) {
		// A path runs relative to the working directory: the suite folder.
		path := filepath.FromSlash(command)
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		info, err := os.Stat(path)
		switch {
		case err != nil && errors.Is(err, os.ErrNotExist):
			return nil, spec.Diagnostics{spec.Errorf(pos, "config.command", "a relative command path is relative to the suite folder ("+displayDir(dir)+")",
				"grader %q: program %s not found", def.Name, cfg.Command)}
		case err != nil:
			return nil, spec.Diagnostics{spec.Errorf(pos, "config.command", "", "grader %q: cannot read program %s: %v", def.Name, cfg.Command, err)}
		case info.IsDir() || !isExecutableMode(uint32(info.Mode().Perm())):
			return nil, spec.Diagnostics{spec.Errorf(pos, "config.command", "run `chmod +x "+cfg.Command+"`, or name its interpreter as the command",
				"grader %q: program %s is not executable", def.Name, cfg.Command)}
		}
		command = path
	} else {
		p, err := exec.LookPath(command)
		if err != nil {
			// As in waza, a program that is not installed fails the runs it grades; the suite
			// still loads.
			msg := fmt.Sprintf("grader %q: program %s is not installed (not found on PATH)", def.Name, cfg.Command)
			return Failing(msg), spec.Diagnostics{spec.Warnf(pos, "config.command", "install "+command+" or put it on PATH", "%s; it errors in every run", msg).OfMachine()}
		}
		command = p
	}
	return &programGrader{def: def, command: command, display: cfg.Command, args: cfg.Args, dir: dir, timeout: timeout}, nil
}

// Grade runs the program (docs/graders.md#program--a-commands-exit-code). A non-zero exit fails the
// run (score 0); a program that times out or cannot start makes the run an error.
func (g *programGrader) Grade(ctx context.Context, in *Input) (*results.GraderResult, error) {
	run := runOf(in)
	res, err := runProgram(ctx, g.command, g.args, g.dir, programEnv(in, g.dir), []byte(run.FinalOutput), g.timeout)
	if err != nil {
		return nil, fmt.Errorf("program %s could not be started: %w", g.display, err)
	}
	workspace := ""
	if in != nil {
		workspace = in.Workspace
	}
	stdout := strings.TrimSpace(string(res.stdout))
	details := map[string]any{
		"command":       g.display,
		"args":          orEmpty(g.args),
		"stdout":        truncateMiddle(stdout, maxFeedbackStdout),
		"stderr":        strings.TrimSpace(res.stderr),
		"exit_code":     res.exitCode,
		"workspace_dir": workspace,
	}
	if res.timedOut {
		msg := fmt.Sprintf("program %s timed out after %s (killed with its child processes)", g.display, g.timeout)
		if tail := stderrTail(res.stderr); tail != "" {
			msg += "; stderr: " + tail
		}
		r := result(g.def, 0, false, msg, details)
		r.Status = results.StatusError
		return r, errors.New(msg)
	}
	if obj, ok := findResultJSON(res.stdout); ok && isGraderResult(obj) {
		v, err := parseVerdict(obj)
		if err != nil {
			msg := fmt.Sprintf("program %s printed an invalid result: %v; result: %s", g.display, err, jsonText(obj))
			r := result(g.def, 0, false, msg, details)
			r.Status = results.StatusError
			return r, errors.New(msg)
		}
		for k, x := range v.details {
			if _, taken := details[k]; !taken {
				details[k] = x
			}
		}
		feedback := v.feedback
		if feedback == "" {
			feedback = fmt.Sprintf("Program %s: %s (exit %d)", g.display, map[bool]string{true: "passed", false: "failed"}[v.passed], res.exitCode)
		}
		return result(g.def, v.score, v.passed, feedback, details), nil
	}
	if res.exitCode == 0 {
		feedback := truncateMiddle(stdout, maxFeedbackStdout)
		if feedback == "" {
			feedback = "Program exited successfully"
		}
		return result(g.def, 1, true, feedback, details), nil
	}
	feedback := fmt.Sprintf("Program exited with status %d", res.exitCode)
	if stdout != "" {
		feedback += ": " + truncateMiddle(stdout, maxFeedbackStdout)
	}
	if tail := stderrTail(res.stderr); tail != "" {
		feedback += "; stderr: " + tail
	}
	return result(g.def, 0, false, feedback, details), nil
}
