package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// newFlagSet returns a flag set whose errors and help go to the app's stderr.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: skillgate %s\n\nFlags:\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseInterspersed parses flags that may come before, between or after positional arguments
// (`skillgate run evals/ -o out.json`), which the flag package alone stops at.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if rest[0] == "--" {
			return append(positional, rest[1:]...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// parseOperands parses args as parseInterspersed does and checks that between least and most
// operands came (most < 0: no upper bound). A wrong count prints need (when given, after the
// command's name) and the usage; the error is then errOperands, else the flag package's (said).
func parseOperands(fs *flag.FlagSet, args []string, least, most int, need string) (operands []string, err error) {
	operands, err = parseInterspersed(fs, args)
	if err != nil {
		return nil, err
	}
	if len(operands) < least || (most >= 0 && len(operands) > most) {
		if need != "" {
			fmt.Fprintf(fs.Output(), "skillgate %s: %s\n", fs.Name(), need)
		}
		fs.Usage()
		return nil, errOperands
	}
	return operands, nil
}

// errOperands is a wrong number of operands; parseOperands has said so.
var errOperands = errors.New("wrong number of operands")

// usageExit is the exit code of a command whose arguments did not parse: 0 when -h or --help
// asked for the usage (printed), else a usage error.
func usageExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// stringList is a repeatable flag; each use may also hold comma-separated values.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*s = append(*s, part)
		}
	}
	return nil
}

// durationFlag accepts Go durations ("90s", "5m") and plain seconds ("300").
type durationFlag time.Duration

func (d *durationFlag) String() string { return time.Duration(*d).String() }
func (d *durationFlag) Set(v string) error {
	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 1 {
			return errors.New("must be at least 1 second")
		}
		*d = durationFlag(time.Duration(secs) * time.Second)
		return nil
	}
	dur, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("not a duration (use e.g. 90s, 5m or seconds): %q", v)
	}
	if dur < time.Second {
		return errors.New("must be at least 1s")
	}
	*d = durationFlag(dur)
	return nil
}

// optionalBool is a bool flag that remembers whether it was given.
type optionalBool struct {
	set, value bool
}

func (b *optionalBool) IsBoolFlag() bool { return true }
func (b *optionalBool) String() string   { return strconv.FormatBool(b.value) }
func (b *optionalBool) Set(v string) error {
	val, err := strconv.ParseBool(v)
	if err != nil {
		return err
	}
	b.set, b.value = true, val
	return nil
}

func (b *optionalBool) ptr() *bool {
	if !b.set {
		return nil
	}
	return &b.value
}
