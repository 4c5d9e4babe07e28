// Command skillgate runs AI-agent skill eval suites, grades them, and reports where GitHub users
// look. This package only wires flags and subcommands to the packages that do the work.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/skillgate/skillgate/internal/ghlog"
	"github.com/skillgate/skillgate/internal/redact"
)

// Exit codes (docs/results.md#the-gate-and-exit-codes).
const (
	exitOK     = 0
	exitFailed = 1 // a task failed or errored, a threshold was missed, or a run was interrupted
	exitUsage  = 2 // configuration or usage error: nothing ran
)

// app is one invocation's environment; tests build their own.
type app struct {
	stdout, stderr io.Writer
	// rawStdout is stdout without redaction, for the action's ::add-mask:: commands; nil:
	// stdout.
	rawStdout io.Writer
	getenv    func(string) string
	isTTY     bool
	ctx       context.Context
	started   time.Time // when the command started: outputs written since are this run's
}

func main() {
	deferGC()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// No secret value skillgate knows of (internal/redact) reaches the terminal or the log.
	redact.AddEnviron(os.Environ())
	stdout, stderr := redact.NewWriter(os.Stdout), redact.NewWriter(os.Stderr)
	a := &app{stdout: stdout, stderr: stderr, rawStdout: os.Stdout, getenv: os.Getenv, isTTY: isTerminal(os.Stdout), ctx: ctx, started: time.Now()}
	code := a.main(os.Args[1:])
	stdout.Flush()
	stderr.Flush()
	os.Exit(code)
}

type command struct {
	name    string
	summary string
	run     func(a *app, args []string) int
}

func commands() []command {
	return []command{
		{"run", "run suites through an executor, grade them, write results and reports", (*app).cmdRun},
		{"validate", "check suites without running anything", (*app).cmdValidate},
		{"compare", "compare two results files of a suite: regressed, improved or inconclusive", (*app).cmdCompare},
		{"report", "regenerate JUnit, SARIF and markdown reports from results files", (*app).cmdReport},
		{"show", "print a results file's tasks, a task's trials, or one trial in full (prompt, output, tool calls, grades)", (*app).cmdShow},
		{"merge", "combine the results of sharded runs (run --shard i/n) into one results file per suite", (*app).cmdMerge},
		{"calibrate", "write a review sheet of sampled runs and a labels skeleton, to calibrate graders by hand", (*app).cmdCalibrate},
		{"action", "run as a GitHub Action step: affected suites, baseline, comment, annotations, gate", (*app).cmdAction},
		{"doctor", "check each agent CLI against a built-in scripted model: found, flags, skill advertised and read, usage", (*app).cmdDoctor},
		{"init", "write a GitHub workflow for the repository's suites (and the fork-safe report workflow)", (*app).cmdInit},
		{"version", "print the version and the commit it was built from", (*app).cmdVersion},
	}
}

func (a *app) main(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		a.usage(a.stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	if args[0] == "--version" || args[0] == "-v" {
		return a.cmdVersion(nil)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			if a.inGitHubActions() && c.name != "action" { // the action defuses its own output
				// Suite and task names, messages and agent output reach the log: none of their
				// lines may be read as a workflow command.
				stdout, stderr := ghlog.New(a.stdout), ghlog.New(a.stderr)
				a.stdout, a.stderr = stdout, stderr
				defer stdout.Flush()
				defer stderr.Flush()
			}
			return c.run(a, args[1:])
		}
	}
	fmt.Fprintf(a.stderr, "skillgate: unknown command %q\n\n", args[0])
	a.usage(a.stderr)
	return exitUsage
}

func (a *app) usage(w io.Writer) {
	fmt.Fprint(w, "skillgate puts AI-agent skills under test on every pull request.\n\nUsage:\n  skillgate <command> [flags] [args]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nRun 'skillgate <command> -h' for a command's flags.\n")
}

func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// inGitHubActions reports whether the process runs as a GitHub Actions step.
func (a *app) inGitHubActions() bool { return a.getenv("GITHUB_ACTIONS") == "true" }
