package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillgate/skillgate/runner"
	"github.com/skillgate/skillgate/spec"
)

// selectVallySuite keeps what the named suite of .vally.yaml selects: the spec files its `evals`
// globs match, and in them the stimuli its tag filter matches (docs/vally.md).
func selectVallySuite(prepared []*runner.Prepared, name string, paths []string) ([]*runner.Prepared, error) {
	start := "."
	if len(paths) > 0 {
		start = paths[0]
	}
	dir, err := filepath.Abs(start)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	project, diags := spec.FindVallyProject(dir)
	if diags.HasErrors() {
		return nil, diags.Errors()[0]
	}
	if project == nil {
		return nil, fmt.Errorf("no .vally.yaml in %s or above it", dir)
	}
	vs, ok := project.Suites[name]
	if !ok {
		return nil, fmt.Errorf("%s has no suite %q (suites: %s)", project.File, name, strings.Join(project.SuiteNames(), ", "))
	}
	var out []*runner.Prepared
	stimuli := 0
	for _, p := range prepared {
		if !vs.Selects(project.Root, p.Suite.File) {
			continue
		}
		var kept []*spec.Task
		for _, t := range p.Suite.Tasks {
			if vs.Matches(t.Tags) {
				kept = append(kept, t)
			}
		}
		if len(kept) == 0 {
			continue
		}
		p.Suite.Tasks = kept
		p.Suite.TriggerTests = nil
		stimuli += len(kept)
		out = append(out, p)
	}
	if stimuli == 0 {
		return nil, fmt.Errorf("suite %q of %s selects no stimulus", name, project.File)
	}
	return out, nil
}
