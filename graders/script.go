package graders

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skillgate/skillgate/internal/childenv"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func init() {
	Register(&Type{
		Name:           "script",
		Summary:        "Runs a grading script (Python, a JavaScript/TypeScript module exporting grade, or any executable) with the run's context as JSON on stdin and reads its score and verdict from stdout.",
		Config:         newConfig[scriptConfig],
		Compile:        compileScript,
		Executes:       true,
		ReadsWorkspace: true,
	})
}

type scriptConfig struct {
	Script  string   `yaml:"script"`
	Timeout *float64 `yaml:"timeout"`
}

type scriptGrader struct {
	def     *spec.Grader
	display string // the script as written
	command string
	args    []string
	dir     string // working directory: the suite folder
	timeout time.Duration
}

func compileScript(def *spec.Grader, env *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[scriptConfig](def)
	timeout, diags := runnable(def, "script", cfg.Script, cfg.Timeout)
	if diags != nil {
		return nil, diags
	}
	pos := def.ConfigAt("script")
	path := filepath.FromSlash(cfg.Script)
	if !filepath.IsAbs(path) {
		path = filepath.Join(absDir(def.Dir), path)
	}
	info, err := os.Stat(path)
	if rerr := resolveDeclared(def, env, path); err == nil && spec.RefusedFix(rerr) != "" {
		return nil, spec.Diagnostics{spec.Errorf(pos, "config.script", spec.RefusedFix(rerr), "grader %q: script refused: %v", def.Name, rerr)}
	}
	if err != nil {
		fix := "the script path is relative to the file that declares the grader (" + displayDir(def.Dir) + ")"
		if errors.Is(err, os.ErrNotExist) {
			return nil, spec.Diagnostics{spec.Errorf(pos, "config.script", fix, "grader %q: script %s not found", def.Name, cfg.Script)}
		}
		return nil, spec.Diagnostics{spec.Errorf(pos, "config.script", fix, "grader %q: cannot read script %s: %v", def.Name, cfg.Script, err)}
	}
	if info.IsDir() {
		return nil, spec.Diagnostics{spec.Errorf(pos, "config.script", "name the script file", "grader %q: script %s is a folder", def.Name, cfg.Script)}
	}
	command, args, problem, fix, missingTool := scriptCommand(path, info)
	if problem != "" && missingTool {
		// What is installed is the machine's business: the suite loads, and the runs this
		// grader grades error until the interpreter is there.
		msg := fmt.Sprintf("grader %q: script %s %s", def.Name, cfg.Script, problem)
		return Failing(msg), spec.Diagnostics{spec.Warnf(pos, "config.script", fix, "%s; it errors in every run", msg).OfMachine()}
	}
	if problem != "" {
		return nil, spec.Diagnostics{spec.Errorf(pos, "config.script", fix, "grader %q: script %s %s", def.Name, cfg.Script, problem)}
	}
	return &scriptGrader{def: def, display: cfg.Script, command: command, args: args, dir: suiteDir(def, env), timeout: timeout}, nil
}

// runnable checks that a grader that runs a program names it (config key `key`), and reads its
// timeout.
func runnable(def *spec.Grader, key, program string, secs *float64) (time.Duration, spec.Diagnostics) {
	if strings.TrimSpace(program) == "" {
		return 0, spec.Diagnostics{noChecks(def, key)}
	}
	timeout, d := gradeTimeout(def, secs)
	if d != nil {
		return 0, spec.Diagnostics{*d}
	}
	return timeout, nil
}

// gradeTimeout reads config.timeout (seconds, default 30).
func gradeTimeout(def *spec.Grader, secs *float64) (time.Duration, *spec.Diagnostic) {
	if secs == nil {
		return defaultGradeLimit, nil
	}
	if math.IsNaN(*secs) || *secs <= 0 || *secs > 24*3600 {
		d := spec.Errorf(def.ConfigAt("timeout"), "config.timeout", "give the limit in seconds, e.g. 60", "grader %q: timeout must be a number of seconds > 0, not %v", def.Name, *secs)
		return 0, &d
	}
	return time.Duration(*secs * float64(time.Second)), nil
}

// suiteDir is where grader programs run: the suite folder
// (docs/graders.md#program--a-commands-exit-code).
func suiteDir(def *spec.Grader, env *Env) string {
	if env != nil && env.Suite != nil && env.Suite.Dir != "" {
		return env.Suite.Dir
	}
	return absDir(def.Dir)
}

// scriptCommand decides how a script runs (docs/graders.md#script--custom-grading-scripts): .py
// with python3; .js/.mjs/.cjs with node and .ts/.mts/.cts with node's type stripping (or tsx, or
// bun) — through the grade loader when the file exports `grade`, as a stdin/stdout program
// otherwise; anything else is executed itself (by its shebang). problem and fix explain a script
// that cannot run here; missingTool says the problem is this machine's (an interpreter that is not
// installed), not the suite's.
func scriptCommand(path string, info os.FileInfo) (command string, args []string, problem, fix string, missingTool bool) {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".py":
		py, err := lookPython()
		if err != nil {
			return "", nil, "needs python3, which is not installed (not found on PATH)", "install Python 3 (e.g. `apt-get install python3`, or actions/setup-python in a workflow)", true
		}
		return py, []string{path}, "", "", false
	case ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts":
		ts := ext == ".ts" || ext == ".mts" || ext == ".cts"
		runner, runnerArgs, problem, fix := jsRunner(ts)
		if problem != "" {
			return "", nil, problem, fix, true
		}
		if exportsGrade(path) {
			loader, err := gradeLoader()
			if err != nil {
				return "", nil, "cannot be loaded: " + err.Error(), "", false
			}
			return runner, append(runnerArgs, loader, path), "", "", false
		}
		return runner, append(runnerArgs, path), "", "", false
	}
	if !isExecutableMode(uint32(info.Mode().Perm())) {
		return "", nil, "is not executable", "run `chmod +x " + filepath.Base(path) + "` (and start it with a shebang line such as #!/bin/sh), or use a .py/.js/.ts script", false
	}
	if interp := shebangInterpreter(path); interp != "" {
		if _, err := exec.LookPath(interp); err != nil {
			return "", nil, fmt.Sprintf("names the interpreter %s in its shebang line, which is not installed", interp), "install " + filepath.Base(interp) + " or change the shebang line", true
		}
	}
	return path, nil, "", "", false
}

func lookPython() (string, error) {
	if p, err := exec.LookPath("python3"); err == nil {
		return p, nil
	}
	return exec.LookPath("python")
}

// exportGradeRE finds an export of `grade` in an ES or CommonJS module.
var exportGradeRE = regexp.MustCompile(`\bexport\b[^;\n]*\bgrade\b|\bexports\.grade\b|module\.exports\s*=\s*\{[^}]*\bgrade\b`)

func exportsGrade(path string) bool {
	data, err := os.ReadFile(path)
	return err == nil && exportGradeRE.Match(data)
}

// jsRunner finds what runs JavaScript, and TypeScript when ts is set.
func jsRunner(ts bool) (string, []string, string, string) {
	node, nodeErr := exec.LookPath("node")
	if !ts {
		if nodeErr != nil {
			return "", nil, "needs Node.js, which is not installed (node not found on PATH)", "install Node.js (e.g. `apt-get install nodejs`, or actions/setup-node in a workflow)"
		}
		return node, nil, "", ""
	}
	version := ""
	if nodeErr == nil {
		major, minor, ok := nodeVersion(node)
		version = fmt.Sprintf(" (node v%d.%d found)", major, minor)
		switch {
		case ok && (major > 23 || (major == 23 && minor >= 6)):
			return node, nil, "", ""
		case ok && (major == 23 || (major == 22 && minor >= 6)):
			return node, []string{"--experimental-strip-types", "--no-warnings=ExperimentalWarning"}, "", ""
		}
	}
	for _, alt := range []string{"tsx", "bun"} {
		if p, err := exec.LookPath(alt); err == nil {
			return p, nil, "", ""
		}
	}
	return "", nil, "is TypeScript, which needs Node.js ≥ 22.6 (type stripping), tsx or bun, and none is installed" + version,
		"install Node.js 22.6 or newer (actions/setup-node with node-version: 22), or `npm install -g tsx`"
}

var nodeVersions sync.Map // node path → [2]int

func nodeVersion(node string) (major, minor int, ok bool) {
	if v, found := nodeVersions.Load(node); found {
		mv := v.([2]int)
		return mv[0], mv[1], mv[0] > 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--version")
	cmd.Env = childenv.For("")
	out, err := cmd.Output()
	if err == nil {
		parts := strings.SplitN(strings.TrimPrefix(strings.TrimSpace(string(out)), "v"), ".", 3)
		if len(parts) >= 2 {
			major, _ = strconv.Atoi(parts[0])
			minor, _ = strconv.Atoi(parts[1])
		}
	}
	nodeVersions.Store(node, [2]int{major, minor})
	return major, minor, major > 0
}

// shebangInterpreter is the program a script's #! line runs (for `#!/usr/bin/env X`, X).
func shebangInterpreter(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	if !strings.HasPrefix(line, "#!") {
		return ""
	}
	fields := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(fields) == 0 {
		return ""
	}
	if filepath.Base(fields[0]) == "env" {
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") {
				return f
			}
		}
		return ""
	}
	return fields[0]
}

// gradeLoaderSource calls a module's grade(input) with the context read from stdin and prints
// the result as JSON (seed 003's module protocol). console.log is sent to stderr so a grader's
// own logging cannot corrupt the result.
const gradeLoaderSource = `// skillgate grade loader: runs a JS/TS grader module's grade(input).
import { pathToFileURL } from 'node:url';
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
console.log = (...args) => console.error(...args);
const file = process.argv[process.argv.length - 1];
const mod = await import(pathToFileURL(file).href);
const grade = typeof mod.grade === 'function' ? mod.grade
  : mod.default && typeof mod.default.grade === 'function' ? mod.default.grade
  : typeof mod.default === 'function' ? mod.default : null;
if (!grade) {
  console.error(file + ' does not export a grade function');
  process.exit(3);
}
const result = await grade(input);
process.stdout.write(JSON.stringify(result === undefined ? null : result) + '\n');
`

var (
	loaderOnce sync.Once
	loaderPath string
	loaderErr  error
)

// gradeLoader writes the loader once per process, under a name derived from its content, so
// runs share it and nothing accumulates in the temp folder.
func gradeLoader() (string, error) {
	loaderOnce.Do(func() {
		sum := sha256.Sum256([]byte(gradeLoaderSource))
		p := filepath.Join(os.TempDir(), "skillgate-grade-loader-"+hex.EncodeToString(sum[:6])+".mjs")
		if data, err := os.ReadFile(p); err == nil && string(data) == gradeLoaderSource {
			loaderPath = p
			return
		}
		tmp, err := os.CreateTemp(os.TempDir(), "skillgate-grade-loader-*.tmp")
		if err != nil {
			loaderErr = err
			return
		}
		_, werr := tmp.WriteString(gradeLoaderSource)
		cerr := tmp.Close()
		if werr != nil || cerr != nil {
			os.Remove(tmp.Name())
			loaderErr = errors.Join(werr, cerr)
			return
		}
		if err := os.Rename(tmp.Name(), p); err != nil {
			os.Remove(tmp.Name())
			loaderErr = err
			return
		}
		loaderPath = p
	})
	return loaderPath, loaderErr
}

// programEnv is the environment of a grader program working in dir: a child's
// (internal/childenv) plus the run's workspace.
func programEnv(in *Input, dir string) []string {
	ws := ""
	if in != nil {
		ws = in.Workspace
	}
	env := childenv.For(dir, "WAZA_WORKSPACE_DIR="+ws, "SKILLGATE_WORKSPACE_DIR="+ws)
	if in != nil && in.Task != nil {
		env = append(env, "SKILLGATE_TASK_ID="+in.Task.ID, "SKILLGATE_TRIAL="+strconv.Itoa(in.Trial))
	}
	return env
}

func (g *scriptGrader) Grade(ctx context.Context, in *Input) (*results.GraderResult, error) {
	input, err := json.Marshal(gradingContext(in))
	if err != nil {
		return nil, fmt.Errorf("script %s: building its input: %w", g.display, err)
	}
	res, err := runProgram(ctx, g.command, g.args, g.dir, programEnv(in, g.dir), input, g.timeout)
	if err != nil {
		return nil, fmt.Errorf("script %s could not be started: %w", g.display, err)
	}
	details := map[string]any{"script": g.display, "exit_code": res.exitCode}
	if s := strings.TrimSpace(res.stderr); s != "" {
		details["stderr"] = s
	}
	fail := func(format string, args ...any) (*results.GraderResult, error) {
		msg := fmt.Sprintf("script %s ", g.display) + fmt.Sprintf(format, args...)
		if tail := stderrTail(res.stderr); tail != "" {
			msg += "; stderr: " + tail
		}
		r := result(g.def, 0, false, msg, details)
		r.Status = results.StatusError
		return r, errors.New(msg)
	}
	switch {
	case res.timedOut:
		return fail("timed out after %s (killed with its child processes)", g.timeout)
	case res.exitCode != 0:
		return fail("exited with status %d", res.exitCode)
	}
	obj, ok := findResultJSON(res.stdout)
	if !ok {
		return fail("printed no JSON result on stdout (expected {\"score\": 0–1, \"passed\": bool} or {\"pass\": bool, \"score\": 0–1}); stdout: %s", outputExcerpt(res.stdout))
	}
	v, err := parseVerdict(obj)
	if err != nil {
		return fail("printed an invalid result: %v; result: %s", err, jsonText(obj))
	}
	for k, x := range v.details {
		if _, taken := details[k]; !taken {
			details[k] = x
		}
	}
	feedback := v.feedback
	if feedback == "" {
		feedback = fmt.Sprintf("Script %s: %s", g.display, map[bool]string{true: "passed", false: "failed"}[v.passed])
	}
	return result(g.def, v.score, v.passed, feedback, details), nil
}

func outputExcerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "(empty)"
	}
	return strconv.Quote(truncateMiddle(s, 300))
}
