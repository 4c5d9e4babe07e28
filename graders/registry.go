package graders

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

var registry = map[string]*Type{}

// Register adds a grader type, and tells the loader its config struct. It panics on a duplicate
// name: registration happens in init.
func Register(t *Type) {
	if _, dup := registry[t.Name]; dup {
		panic("graders: duplicate type " + t.Name)
	}
	registry[t.Name] = t
	spec.RegisterGraderType(spec.GraderType{Name: t.Name, Summary: t.Summary, Judge: t.Judge, Config: t.Config})
	results.RegisterGraderType(results.GraderType{Name: t.Name, Summary: t.Summary, Judge: t.Judge})
}

// Lookup returns the registered type of that name.
func Lookup(name string) (*Type, bool) {
	t, ok := registry[name]
	return t, ok
}

// Types returns every registered type, sorted by name.
func Types() []*Type {
	out := make([]*Type, 0, len(registry))
	for _, t := range registry {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Compiled holds the compiled graders of one suite: each declaration compiled once.
type Compiled struct {
	byDef map[*spec.Grader]Grader
}

// For returns the compiled grader of a declaration (nil if it failed to compile).
func (c *Compiled) For(def *spec.Grader) Grader { return c.byDef[def] }

// Compile compiles every distinct grader declaration of the suite (global graders once, however
// many tasks use them) and returns every problem found.
func Compile(s *spec.Suite) (*Compiled, spec.Diagnostics) {
	return CompileEnv(&Env{Suite: s})
}

// CompileEnv is Compile with judge settings and labels; env.Suite is the suite to compile.
func CompileEnv(env *Env) (*Compiled, spec.Diagnostics) {
	s := env.Suite
	c := &Compiled{byDef: map[*spec.Grader]Grader{}}
	var diags spec.Diagnostics
	seen := map[*spec.Grader]bool{}
	compile := func(def *spec.Grader) {
		if seen[def] {
			return
		}
		seen[def] = true
		g, ds := CompileOne(def, env)
		diags = append(diags, ds...)
		if g != nil && !ds.HasErrors() {
			c.byDef[def] = g
		}
	}
	for _, def := range s.Graders {
		compile(def)
	}
	for _, t := range s.Tasks {
		for _, def := range t.Graders {
			compile(def)
		}
	}
	return c, diags
}

// CompileOne compiles a single declaration.
func CompileOne(def *spec.Grader, env *Env) (Grader, spec.Diagnostics) {
	t, ok := Lookup(def.Type)
	if !ok && def.Type == "" {
		// The loader reported the missing type; as in waza, the grader fails the runs it grades.
		return Failing(fmt.Sprintf("grader %q has no type", def.Name)), nil
	}
	if !ok {
		// As in waza, a grader of a type this build does not know fails the runs it grades;
		// the suite's other graders and tasks still run (docs/format.md#what-is-an-error).
		// `skillgate validate --strict` turns the warning into an error.
		vally := env != nil && env.Suite != nil && env.Suite.Format == "vally"
		names := implementedNames()
		if !vally {
			// Vally's names are kebab-case; a waza or skill-creator suite is shown its own.
			names = slices.DeleteFunc(names, func(n string) bool { return strings.Contains(n, "-") })
		}
		fix := "use one of: " + strings.Join(names, ", ")
		if s := spec.Suggest(def.Type, names); s != "" {
			fix = "did you mean `" + s + "`? " + fix
		}
		msg := fmt.Sprintf("grader %q: unknown grader type %q", def.Name, def.Type)
		if alt, builtin := vallyBuiltinsNotImplemented[def.Type]; vally && builtin {
			// One of Vally's own graders that skillgate lacks: not a plugin's, nor a typo.
			msg = fmt.Sprintf("grader %q: Vally's built-in %q grader is not supported by skillgate yet", def.Name, def.Type)
			fix = alt
		} else if vally && strings.Contains(def.Type, "-") {
			// Vally's names are kebab-case: a type none of its built-ins has is a plugin's.
			msg = fmt.Sprintf("grader %q: %q is not one of Vally's built-in graders (a --grader-plugin type?); plugin graders are not supported", def.Name, def.Type)
		}
		return Failing(msg), spec.Diagnostics{spec.Warnf(def.Pos, "type", fix, "%s; this grader errors in every run", msg).OfKind(spec.KindUnknownGrader)}
	}
	if env != nil && env.Override != nil {
		if g := env.Override(def, t); g != nil {
			return g, nil
		}
	}
	if def.ConfigErrors.HasErrors() {
		return nil, def.ConfigErrors
	}
	g, diags := t.Compile(def, env)
	if g == nil && !diags.HasErrors() {
		diags = append(diags, spec.Errorf(def.Pos, "type", "", "grader %q (%s) could not be compiled", def.Name, def.Type))
	}
	return g, diags
}

// vallyBuiltinsNotImplemented are Vally's built-in grader types (docs/vally.md#graders) that
// skillgate does not run, each with the nearest grader it does run. A spec that uses one is
// valid Vally, so the warning names the type as Vally's, not as unknown or a plugin's.
var vallyBuiltinsNotImplemented = map[string]string{
	"panel":                          "grade with a `prompt` grader (one LLM judge: prompt, model, threshold, the stimulus's rubric) until panels are supported",
	"assistant-contains-tool-output": "check the answer with `output-contains` or `output-matches`, or the tool results with `transcript-matches`",
	"step-count":                     "bound the run with `turn-count` or `tool-call-count` (min, max)",
	"max-repeat":                     "bound repeated calls with `tool-call-count` (max)",
	"loop-outcome":                   "bound retries with `tool-call-count` or `error-count` (max)",
	"system":                         "check the transcript with `transcript-contains` or `transcript-matches`",
	"custom-metrics":                 "compute and check the metric in a `program` grader",
}

// JudgeDescriber is implemented by graders that ask an LLM judge.
type JudgeDescriber interface {
	JudgeModel() string
	JudgePromptHash() string
}

// JudgeProvenance describes the suite's LLM judges for results provenance: the distinct models,
// sorted and joined with ", ", and one hash over every judge's model and instructions ("" and
// "" when the suite has no LLM grader).
func (c *Compiled) JudgeProvenance() (models, promptHash string) {
	type entry struct{ key, hash string }
	var entries []entry
	seen := map[string]bool{}
	var names []string
	for def, g := range c.byDef {
		j, ok := g.(JudgeDescriber)
		if !ok {
			continue
		}
		// Names, not positions: the hash must not depend on where the repository is checked out.
		entries = append(entries, entry{def.Name, j.JudgePromptHash()})
		if m := j.JudgeModel(); !seen[m] {
			seen[m] = true
			names = append(names, m)
		}
	}
	if len(entries) == 0 {
		return "", ""
	}
	sort.Strings(names)
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].key != entries[j].key {
			return entries[i].key < entries[j].key
		}
		return entries[i].hash < entries[j].hash
	})
	h := sha256.New()
	for _, e := range entries {
		io.WriteString(h, e.key+"\x00"+e.hash)
		h.Write([]byte{0})
	}
	return strings.Join(names, ", "), "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Failing is a grader that cannot grade: every run it grades errors with msg. Problems that only
// matter when a grader runs (no judge endpoint, a missing snapshot, an unknown type) become such
// graders, so a suite still loads and its other graders still run.
func Failing(msg string) Grader { return failing(msg) }

// failing is Failing's grader; its message says, before any run, why the runs it grades error.
type failing string

func (f failing) Grade(context.Context, *Input) (*results.GraderResult, error) {
	return nil, errors.New(string(f))
}

// FailureOf says why every run a compiled grader grades errors ("" when it can grade): the
// graders the loader kept with a warning (an unknown type, no judge endpoint) rather than refused.
func FailureOf(g Grader) string {
	if f, ok := g.(failing); ok {
		return string(f)
	}
	return ""
}

func implementedNames() []string {
	var names []string
	for _, t := range Types() {
		names = append(names, t.Name)
	}
	if len(names) == 0 {
		return []string{"(none)"}
	}
	return names
}

// ReadsWorkspace reports whether any of the graders reads the run's workspace (an unknown type
// is assumed to).
func ReadsWorkspace(defs []*spec.Grader) bool {
	for _, def := range defs {
		if t, ok := Lookup(def.Type); !ok || t.ReadsWorkspace {
			return true
		}
	}
	return false
}
