package agent

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Options configure an executor. They come from eval.yaml's config block, CLI flags and the
// environment; the runner fills them in.
type Options struct {
	// Path overrides the agent binary (default: the CLI's usual name looked up in PATH).
	Path string
	// Args are extra arguments appended to the agent's command line.
	Args []string
	// Settings holds executor-specific settings decoded from eval.yaml (`config.command`,
	// `config.executors.<name>`…), keyed by config key.
	Settings map[string]any
	// ReplayFrom is the replay executor's input: a results file or a folder of run files.
	ReplayFrom string
	// Suite is the name of the suite being run (replay matches results files by it).
	Suite string
	// Log receives diagnostics meant for the user (never secrets). May be nil.
	Log io.Writer
}

// Factory builds an executor.
type Factory func(opts Options) (Executor, error)

type registration struct {
	canonical string
	factory   Factory
}

var factories = map[string]registration{}

// Register adds an executor under its canonical name and any aliases.
func Register(name string, f Factory, aliases ...string) {
	for _, n := range append([]string{name}, aliases...) {
		if _, dup := factories[n]; dup {
			panic("agent: duplicate executor " + n)
		}
		factories[n] = registration{canonical: name, factory: f}
	}
}

// New builds the executor of that name (or alias).
func New(name string, opts Options) (Executor, error) {
	r, ok := factories[name]
	if !ok {
		return nil, fmt.Errorf("unknown executor %q; known executors: %s", name, strings.Join(Names(), ", "))
	}
	return r.factory(opts)
}

// Canonical returns the canonical name of an executor name or alias, and whether it is known.
func Canonical(name string) (string, bool) {
	r, ok := factories[name]
	return r.canonical, ok
}

// Names lists every registered name and alias, sorted.
func Names() []string {
	return slices.Sorted(maps.Keys(factories))
}
