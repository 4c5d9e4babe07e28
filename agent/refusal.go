package agent

import (
	"regexp"
	"strings"
)

// refusal is a setup an agent CLI refuses to run in, recognised from what it prints, with the fix.
type refusal struct {
	// said matches the CLI's own words, on standard error or in its stream's error.
	said *regexp.Regexp
	// what names what is refused; fix says how to make the CLI run.
	what, fix string
}

// RefusedError is a run the agent CLI refused to start in this setup (Claude Code's
// bypassPermissions as root…): the run's error, what the CLI refused in its own words, and the
// fix. `skillgate doctor` reports it as such; every run's error ends with the fix.
type RefusedError struct {
	Err error
	// Said is the CLI's own words; What names what it refuses; Fix says how to make it run.
	Said, What, Fix string
}

func (e *RefusedError) Error() string { return e.Err.Error() + " (" + e.What + "; fix: " + e.Fix + ")" }
func (e *RefusedError) Unwrap() error { return e.Err }

// refused returns the run's error as a RefusedError when the CLI's output (its standard error and
// the run's error) says it refused to run; else err as it is.
func (s *cliSpec) refused(err error, stderr string) error {
	if err == nil {
		return nil
	}
	for _, r := range s.refusals {
		for _, text := range []string{stderr, err.Error()} {
			if m := r.said.FindString(text); m != "" {
				return &RefusedError{Err: err, Said: strings.TrimSpace(m), What: r.what, Fix: r.fix}
			}
		}
	}
	return err
}
