package agent

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/skillgate/skillgate/internal/childenv"
	"github.com/skillgate/skillgate/internal/shellwords"
	"github.com/skillgate/skillgate/results"
)

// maxPromptArg is the longest prompt passed as a command-line argument; longer prompts go
// through stdin (Linux refuses single arguments over 128 KiB).
const maxPromptArg = 96 << 10

// VersionTimeout bounds `<agent> --version`: a first `gemini --version` takes 7–10 s, a first
// `copilot --version` (unpacking itself) about 7 s, more on a loaded machine.
const VersionTimeout = 30 * time.Second

const versionTimeout = VersionTimeout

// cliSpec describes how to drive one agent CLI headless.
type cliSpec struct {
	// name is the executor's canonical name; aliases share its settings.
	name    string
	aliases []string
	// binary is the CLI's usual name, looked up in PATH.
	binary string
	// skillsDir is where the agent discovers workspace skills, relative to the workspace.
	skillsDir string
	// settings lists the keys of config.executors.<name> this agent accepts, with their check;
	// registerCLI adds skills_dir, which every agent CLI accepts (Run reads it).
	settings map[string]func(string) error
	// flags are the CLI's own options for a headless run with these settings; the command line
	// is flags, --model, the extra arguments, then promptArgs (commandLine).
	flags func(cfg map[string]string) []string
	// promptArgs are the arguments that carry the prompt; prompt is "" when it goes through
	// stdin instead.
	promptArgs func(prompt string) []string
	parser     func() transcriptParser
	// env holds environment variables the agent needs to run headless in a fresh workspace;
	// each applies unless skillgate's environment or the task sets that variable itself.
	env map[string]string
	// hand names credentials this agent alone is given from skillgate's environment
	// (childenv.Spec.Hand), e.g. Copilot's COPILOT_GITHUB_TOKEN.
	hand []string
	// resume are the arguments that continue a session (Request.ResumeSession) with the prompt
	// as the next user message; they come after the extra arguments, before the prompt's. nil:
	// the CLI cannot continue a session headless.
	resume func(session string) []string
	// refusals are the setups the CLI refuses to run in, with their fix (RefusedError).
	refusals []refusal
	// promptOnStdin sends every prompt through stdin, not only long ones (opencode).
	promptOnStdin bool
	// takesModel says whether the CLI can run a model named so; nil takes any. A model it cannot
	// is left off the command line and the CLI runs its configured default (ModelNote).
	takesModel func(model string) bool
}

// commandLine is the CLI's own flags, --model when the task names a model, the extra arguments,
// then the prompt's arguments.
func (s *cliSpec) commandLine(req *Request, cfg map[string]string, extra []string, prompt string) []string {
	args := s.flags(cfg)
	if req.Model != "" && (s.takesModel == nil || s.takesModel(req.Model)) {
		args = append(args, "--model", req.Model)
	}
	args = append(args, extra...)
	if req.ResumeSession != "" && s.resume != nil {
		args = append(args, s.resume(req.ResumeSession)...)
	}
	return append(args, s.promptArgs(prompt)...)
}

// promptOption passes the prompt as one --prompt=… argument: the "=" form keeps a prompt that
// starts with "-" a value. Without a prompt argument the CLI reads stdin.
func promptOption(prompt string) []string {
	if prompt == "" {
		return nil
	}
	return []string{"--prompt=" + prompt}
}

// envPrefix is the prefix of the environment variables configuring an executor:
// SKILLGATE_CLAUDE_CODE_PATH, SKILLGATE_CLAUDE_CODE_ARGS…
func envPrefix(name string) string {
	return "SKILLGATE_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// cliExecutor runs an agent CLI: installs the skills, starts the CLI in the workspace with the
// agent's environment, parses its stream as it comes, and turns how the process ended into the
// run's error.
type cliExecutor struct {
	spec  *cliSpec
	path  string
	extra []string
	cfg   map[string]string

	versionMu   sync.Mutex
	versionDone bool
	version     string
	versionErr  error
}

func newCLIExecutor(spec *cliSpec, opts Options) (*cliExecutor, error) {
	cfg, err := builtinSettings(spec, opts.Settings)
	if err != nil {
		return nil, err
	}
	path, extra, err := binaryAndArgs(spec.name, spec.binary, opts)
	if err != nil {
		return nil, err
	}
	return &cliExecutor{spec: spec, path: path, extra: extra, cfg: cfg}, nil
}

// binaryAndArgs resolves the binary and extra arguments: Options first, then the
// SKILLGATE_<NAME>_PATH / _ARGS environment variables, then the CLI's usual name.
func binaryAndArgs(name, binary string, opts Options) (string, []string, error) {
	path := opts.Path
	if path == "" {
		path = os.Getenv(envPrefix(name) + "_PATH")
	}
	if path == "" {
		path = binary
	}
	extra := opts.Args
	if extra == nil {
		if env := os.Getenv(envPrefix(name) + "_ARGS"); env != "" {
			split, err := shellwords.Split(env)
			if err != nil {
				return "", nil, fmt.Errorf("%s_ARGS: %w", envPrefix(name), err)
			}
			extra = split
		}
	}
	return path, extra, nil
}

func (e *cliExecutor) Name() string { return e.spec.name }

// ContinuesSessions implements Conversational: the CLI can resume a session headless.
func (e *cliExecutor) ContinuesSessions() bool { return e.spec.resume != nil }

// resolveBinary finds the binary, with an error that says how to fix a missing one.
func resolveBinary(executor, path string) (string, error) {
	resolved, err := exec.LookPath(path)
	if err != nil {
		return "", fmt.Errorf("%s: agent CLI %q not found (%w); install it or set its path (executor path option or %s_PATH)",
			executor, path, err, envPrefix(executor))
	}
	return resolved, nil
}

// Preflight implements Preflighter: the agent CLI must be installed.
func (e *cliExecutor) Preflight() error {
	_, err := resolveBinary(e.spec.name, e.path)
	return err
}

func (e *cliExecutor) Run(ctx context.Context, req *Request) (*results.AgentRun, error) {
	start := time.Now()
	if req.Workspace == "" {
		return nil, fmt.Errorf("%s: no workspace", e.spec.name)
	}
	bin, err := resolveBinary(e.spec.name, e.path)
	if err != nil {
		return nil, err
	}
	skillsDir := e.spec.skillsDir
	if d := e.cfg["skills_dir"]; d != "" {
		skillsDir = d
	}
	installed, err := installSkills(req.Workspace, skillsDir, req.SkillDirs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.spec.name, err)
	}
	prompt, stdin := req.Prompt, io.Reader(nil)
	if len(prompt) > maxPromptArg || e.spec.promptOnStdin {
		prompt, stdin = "", strings.NewReader(req.Prompt)
	}
	c := command{
		Path:  bin,
		Args:  e.spec.commandLine(req, e.cfg, e.extra, prompt),
		Dir:   req.Workspace,
		Env:   agentEnv(req.Workspace, e.spec.hand, withDefaults(e.spec.env, req.Environment)),
		Stdin: stdin,
	}
	parser := e.spec.parser()
	run, err := finishRun(ctx, e.spec.name, c, req, start, installed, parser, feedLines)
	if err != nil && run != nil {
		err = e.spec.refused(err, run.Stderr)
	}
	return run, err
}

// finishRun runs the process, feeds the parser and turns everything into the run and its error.
func finishRun(ctx context.Context, name string, c command, req *Request, start time.Time,
	installed []installedSkill, parser transcriptParser, consume func(io.Reader, lineSink) error) (*results.AgentRun, error) {
	// An early stop or a budget ends the agent through its own context, so it is told apart
	// from the caller's cancellation.
	procCtx, stop := context.WithCancel(ctx)
	defer stop()
	interrupt := make(chan struct{})
	c.Interrupt = interrupt
	var sink lineSink = parser
	watch := watchStream(req.Stop, parser, stop, sync.OnceFunc(func() { close(interrupt) }))
	if watch != nil {
		sink = watch
	}
	if sr, ok := parser.(stderrReader); ok {
		// Lines from standard error and from the stream land in the same run, in the order
		// they came.
		locked := &lockedSink{sink: sink}
		sink = locked
		c.StderrLine = func(line []byte) {
			locked.mu.Lock()
			defer locked.mu.Unlock()
			sr.stderrLine(line)
		}
	}
	out, err := runCommand(procCtx, c, req.Timeout, func(r io.Reader) error { return consume(r, sink) })
	if err != nil {
		return nil, fmt.Errorf("%s: starting %s: %w", name, c.Path, err)
	}
	run, streamErr := parser.finish()
	run.DurationMS = time.Since(start).Milliseconds()
	run.Stderr = out.Stderr
	attributeSkills(run, req.Workspace, installed)

	stoppedEarly, overBudget := watch.outcome()
	if stoppedEarly != "" && ctx.Err() == nil {
		// Stopped on purpose: how the process and its cut stream ended is not a failure. An
		// interrupted agent's own report of the session's usage replaces what the run saw.
		run.StoppedEarly = stoppedEarly
		if u := watch.stoppedUsage(); u != nil {
			run.SessionDigest.Usage = u
		}
		return run, nil
	}
	var while string
	if owner, ok := parser.(builderOwner); ok {
		while = owner.builder().retrying()
	}
	reasons := out.failureWhile(req.Timeout, while)
	if overBudget != "" && ctx.Err() == nil {
		reasons = []string{overBudget}
	} else if streamErr != nil {
		reasons = append(reasons, streamErr.Error())
	}
	if len(reasons) == 0 {
		if err := req.Stop.CheckBudget(run.SessionDigest.Usage); err != nil {
			reasons = append(reasons, err.Error())
		}
	}
	if len(reasons) > 0 {
		return run, fmt.Errorf("%s: %s", name, strings.Join(reasons, "; "))
	}
	return run, nil
}

// stderrReader is implemented by parsers that read what their CLI reports only on standard
// error (Gemini CLI's API retries).
type stderrReader interface {
	stderrLine(line []byte)
}

// lockedSink serializes the lines of the stream with those of standard error.
type lockedSink struct {
	mu   sync.Mutex
	sink lineSink
}

func (l *lockedSink) line(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sink.line(b)
}

// withDefaults adds an agent's default variables to the request's, except those set already,
// in skillgate's environment or by the request.
func withDefaults(defaults, env map[string]string) map[string]string {
	if len(defaults) == 0 {
		return env
	}
	out := make(map[string]string, len(env)+len(defaults))
	for k, v := range defaults {
		if _, set := os.LookupEnv(k); !set {
			out[k] = v
		}
	}
	for k, v := range env {
		out[k] = v
	}
	return out
}

// agentEnv is the environment of an agent working in dir: a child's (internal/childenv: PATH,
// HOME, the agents' API keys, PWD; never the runner's or the workflow's tokens), the credentials
// handed to this agent alone, and the request's variables on top. It is passed to the process
// and never logged.
func agentEnv(dir string, hand []string, vars map[string]string) []string {
	return childenv.Spec{Dir: dir, Hand: hand, Vars: vars}.Environ()
}

// HandedCredentials names the credentials some executor is handed for itself (cliSpec.hand), so
// a run does not report them as held back (childenv.HeldBack).
func HandedCredentials() []string {
	var out []string
	for _, s := range cliSpecs {
		out = append(out, s.hand...)
	}
	return out
}

// Version runs `<agent> --version` once and caches the answer (its first line).
func (e *cliExecutor) Version(ctx context.Context) (string, error) {
	e.versionMu.Lock()
	defer e.versionMu.Unlock()
	if !e.versionDone {
		e.version, e.versionErr = cliVersion(ctx, e.spec.name, e.path, []string{"--version"})
		e.versionDone = ctx.Err() == nil // a canceled attempt is not cached
	}
	return e.version, e.versionErr
}

func cliVersion(ctx context.Context, name, path string, argv []string) (string, error) {
	bin, err := resolveBinary(name, path)
	if err != nil {
		return "", err
	}
	var stdout bytes.Buffer
	out, err := runCommand(ctx, command{Path: bin, Args: argv, Env: childenv.For("")}, versionTimeout, func(r io.Reader) error {
		_, err := io.Copy(&stdout, io.LimitReader(r, 64<<10))
		_, _ = io.Copy(io.Discard, r)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("%s: %s %s: %w", name, path, strings.Join(argv, " "), err)
	}
	if reasons := out.failure(versionTimeout); len(reasons) > 0 {
		return "", fmt.Errorf("%s: %s %s: %s", name, path, strings.Join(argv, " "), strings.Join(reasons, "; "))
	}
	for _, text := range []string{stdout.String(), out.Stderr} {
		for _, line := range strings.Split(text, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				return line, nil
			}
		}
	}
	return "", fmt.Errorf("%s: %s %s printed nothing", name, path, strings.Join(argv, " "))
}

// ModelNote says why an executor will not be given a suite's model ("" when it will): opencode
// names models provider/model, and waza's suites name the bare model id of one vendor
// (claude-sonnet-4-20250514), which opencode rejects with "Unexpected server error".
func ModelNote(executor, model string) string {
	name, _ := Canonical(executor)
	spec := cliSpecs[name]
	if model == "" || spec == nil || spec.takesModel == nil || spec.takesModel(model) {
		return ""
	}
	return fmt.Sprintf("model %q is not one %s can name (it takes provider/model, e.g. anthropic/claude-sonnet-4-5): %s runs its configured default model instead (fix: set config.model or --model as %s names it)",
		model, name, name, name)
}
