package action

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	gha "github.com/sethvargo/go-githubactions"

	"github.com/skillgate/skillgate/internal/ghlog"
	"github.com/skillgate/skillgate/internal/redact"
)

// errNoFileCommand: the file command's variable is unset (not running as an Actions step).
var errNoFileCommand = errors.New("not set")

// commands writes workflow commands (stdout) and file commands (GITHUB_OUTPUT,
// GITHUB_STEP_SUMMARY) through go-githubactions, guarding every file command: the library
// panics when the variable is unset or the file cannot be written.
type commands struct {
	gha *gha.Action
	// masker writes ::add-mask:: to the unredacted stdout: a redacted mask command would mask
	// "***" instead of the secret.
	masker *gha.Action
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer

	warnings []string
}

func newCommands(stdout, stderr io.Writer, getenv func(string) string) *commands {
	return &commands{
		gha:    gha.New(gha.WithWriter(stdout), gha.WithGetenv(getenv)),
		getenv: getenv,
		stdout: stdout,
		stderr: stderr,
	}
}

// input is an input's trimmed value: INPUT_<NAME> with the hyphens kept, as the runner exports a
// container action's inputs, else with hyphens as underscores, as a composite action or a shell
// can set them.
func (c *commands) input(name string) string {
	if v := c.gha.GetInput(name); v != "" {
		return v
	}
	return strings.TrimSpace(c.getenv("INPUT_" + strings.ToUpper(strings.NewReplacer("-", "_", " ", "_").Replace(name))))
}

// mask hides a secret in the log (::add-mask::) and registers it with internal/redact, so no
// output skillgate writes carries it.
func (c *commands) mask(secret string) {
	redact.Add(secret)
	if strings.TrimSpace(secret) != "" && !strings.ContainsAny(secret, "\r\n") {
		cmp.Or(c.masker, c.gha).AddMask(secret)
	}
}

// infof prints a plain log line. Line breaks are folded so text from the change (file names,
// suite names) cannot start a line that the runner reads as a workflow command.
func (c *commands) infof(format string, args ...any) {
	msg := strings.NewReplacer("\r", " ", "\n", " ").Replace(fmt.Sprintf(format, args...))
	c.gha.Infof("%s", msg)
}

// warnf emits a warning annotation without a place and keeps it for the summary.
func (c *commands) warnf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	c.warnings = append(c.warnings, msg)
	c.gha.Warningf("%s", msg)
}

func (c *commands) errorf(title, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if title != "" {
		c.gha.WithFieldsMap(map[string]string{"title": title}).Errorf("%s", msg)
		return
	}
	c.gha.Errorf("%s", msg)
}

func (c *commands) noticef(format string, args ...any) {
	c.gha.Noticef(format, args...)
}

// annotate emits one annotation at its file and line.
func (c *commands) annotate(a Annotation) {
	props := map[string]string{}
	if a.Title != "" {
		props["title"] = a.Title
	}
	if a.File != "" {
		props["file"] = a.File
		props["line"] = strconv.Itoa(max(a.Line, 1))
		if a.Col > 0 {
			props["col"] = strconv.Itoa(a.Col)
		}
	}
	act := c.gha.WithFieldsMap(props)
	switch a.Level {
	case LevelError:
		act.Errorf("%s", a.Message)
	case LevelWarning:
		act.Warningf("%s", a.Message)
	default:
		act.Noticef("%s", a.Message)
	}
}

// setOutput writes one step output with a random delimiter (the library's fixed delimiter lets
// a value that contains it inject outputs).
func (c *commands) setOutput(name, value string) error {
	delim, err := delimiter(value)
	if err != nil {
		return err
	}
	return c.fileCommand("output", "GITHUB_OUTPUT", name+"<<"+delim+"\n"+value+"\n"+delim)
}

// addSummary appends markdown to the step summary.
func (c *commands) addSummary(markdown string) error {
	return c.fileCommand("step-summary", "GITHUB_STEP_SUMMARY", markdown)
}

func (c *commands) fileCommand(name, variable, message string) (err error) {
	if c.getenv(variable) == "" {
		return fmt.Errorf("%s %w", variable, errNoFileCommand)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("writing %s: %v", variable, p)
		}
	}()
	c.gha.IssueFileCommand(&gha.Command{Name: name, Message: redact.String(message)})
	return nil
}

// delimiter returns a heredoc delimiter that does not occur in value.
func delimiter(value string) (string, error) {
	for range 8 {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		d := "ghadelimiter_" + hex.EncodeToString(b[:])
		if !strings.Contains(value, d) {
			return d, nil
		}
	}
	return "", errors.New("no free output delimiter")
}

// newNeutralWriter passes agent, hook and suite text through to the log with workflow commands
// defused (internal/ghlog): a line that would be read as `::command::` (or the legacy
// `##[command]`) gets a visible prefix, so output of the code under test cannot add masks,
// annotations or outputs. The group markers the progress printer gives pass unchanged.
func newNeutralWriter(w io.Writer) *ghlog.Writer { return ghlog.New(w) }
