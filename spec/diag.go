package spec

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Severity says whether a diagnostic stops the run.
type Severity int

const (
	SevError Severity = iota
	SevWarning
)

func (s Severity) String() string {
	if s == SevWarning {
		return "warning"
	}
	return "error"
}

// Diagnostic is one problem found in a suite: where, which key, what, and how to fix it.
type Diagnostic struct {
	Pos      Pos
	Severity Severity
	Key      string // the key path, e.g. "config.trials_per_task" or "graders[2].config.regex_match[0]"
	Message  string
	Fix      string // a suggestion, may be empty
	// Machine marks a problem of the machine, not of the suite (no judge token, an interpreter
	// that is not installed): it stays a warning under --strict, so a suite validates offline.
	Machine bool
	// Kind names the warning's kind (KindUnknownKey…) for `validate --strict --allow KIND`; ""
	// for the others.
	Kind string
}

// Warning kinds `skillgate validate --strict --allow KIND` can keep as warnings.
const (
	KindUnknownKey    = "unknown-key"    // a key the format does not have, ignored
	KindUnknownMetric = "unknown-metric" // a metric name that gates nothing
	KindUnknownGrader = "unknown-grader" // a grader type this build does not have: its runs error
	KindMissingFile   = "missing-file"   // an input file that is not there (a waza task runs without it; a skill-creator eval's runs error)
	KindRange         = "range"          // a value outside its range (a threshold above 1)
)

// Kinds lists the warning kinds, for messages.
var Kinds = []string{KindUnknownKey, KindUnknownMetric, KindUnknownGrader, KindMissingFile, KindRange}

// OfKind returns the diagnostic with its kind set.
func (d Diagnostic) OfKind(kind string) Diagnostic {
	d.Kind = kind
	return d
}

// Error formats the diagnostic as `file:line:col: severity: key: message (fix: …)`.
func (d Diagnostic) Error() string {
	var b strings.Builder
	b.WriteString(d.Pos.String())
	b.WriteString(": ")
	b.WriteString(d.Severity.String())
	b.WriteString(": ")
	if d.Key != "" {
		b.WriteString(d.Key)
		b.WriteString(": ")
	}
	b.WriteString(d.Message)
	if d.Fix != "" {
		b.WriteString(" (fix: ")
		b.WriteString(d.Fix)
		b.WriteString(")")
	}
	return b.String()
}

// Diagnostics is a list of problems.
type Diagnostics []Diagnostic

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == SevError {
			return true
		}
	}
	return false
}

// Errors returns only the errors.
func (ds Diagnostics) Errors() Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.Severity == SevError {
			out = append(out, d)
		}
	}
	return out
}

// Sort orders diagnostics by file, line and column, keeping insertion order for ties.
func (ds Diagnostics) Sort() { slices.SortStableFunc(ds, byPosition) }

// Unique drops the diagnostics that repeat an earlier one word for word (same place, key,
// message and fix), keeping the order.
func (ds Diagnostics) Unique() Diagnostics {
	seen := make(map[Diagnostic]bool, len(ds))
	out := ds[:0:0]
	for _, d := range ds {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// byPosition orders diagnostics by file, line and column.
func byPosition(a, b Diagnostic) int {
	return cmp.Or(strings.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col))
}

// Errorf builds an error diagnostic.
func Errorf(pos Pos, key, fix, format string, args ...any) Diagnostic {
	return Diagnostic{Pos: pos, Severity: SevError, Key: key, Message: fmt.Sprintf(format, args...), Fix: fix}
}

// Warnf builds a warning diagnostic.
func Warnf(pos Pos, key, fix, format string, args ...any) Diagnostic {
	return Diagnostic{Pos: pos, Severity: SevWarning, Key: key, Message: fmt.Sprintf(format, args...), Fix: fix}
}

// String formats the position as file:line:col with the file relative to the working directory
// when it lies below it.
func (p Pos) String() string {
	file := p.DisplayFile()
	line, col := p.Line, p.Col
	if line < 1 {
		line = 1
	}
	if col < 1 {
		col = 1
	}
	return fmt.Sprintf("%s:%d:%d", file, line, col)
}

// DisplayFile is the position's file relative to the working directory when it lies below it.
func (p Pos) DisplayFile() string { return displayPath(p.File) }

func displayPath(path string) string {
	if path == "" {
		return "<unknown>"
	}
	if !filepath.IsAbs(path) {
		return path
	}
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return path
	}
	return rel
}

// Strict returns the diagnostics with every warning made an error: `skillgate validate
// --strict`, for teams that want unknown keys and ignored values to fail the check. Problems of
// the machine (Diagnostic.Machine) stay warnings: the same suite must pass on every machine.
func (ds Diagnostics) Strict() Diagnostics { return ds.StrictAllow(nil) }

// StrictAllow is Strict keeping the warnings of the allowed kinds as warnings (`--strict --allow
// unknown-metric`).
func (ds Diagnostics) StrictAllow(allow []string) Diagnostics {
	out := make(Diagnostics, len(ds))
	for i, d := range ds {
		if !d.Machine && (d.Kind == "" || !slices.Contains(allow, d.Kind)) {
			d.Severity = SevError
		}
		out[i] = d
	}
	return out
}

// OfMachine returns the diagnostic marked as a problem of the machine (see Diagnostic.Machine).
func (d Diagnostic) OfMachine() Diagnostic {
	d.Machine = true
	return d
}
