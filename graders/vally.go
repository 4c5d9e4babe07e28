package graders

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// Vally's built-in graders (docs/vally.md), with Vally's semantics: pass/fail checks scored 1 or
// 0, regular expressions in JavaScript syntax (Vally is TypeScript; real specs use lookahead),
// globs that match dotfiles. Each type is registered under Vally's name.

func init() {
	for _, t := range []struct {
		name, summary string
		workspace     bool
		config        func([]string) any
		compile       func(def *spec.Grader, env *Env) (Grader, spec.Diagnostics)
	}{
		{"output-contains", "Vally: the final output contains `substring` (case-insensitive unless `case_sensitive: true`).", false, newConfig[vallyTextConfig], outputContains(false)},
		{"output-not-contains", "Vally: the final output does not contain `substring`.", false, newConfig[vallyTextConfig], outputContains(true)},
		{"output-matches", "Vally: the final output matches `pattern` (JavaScript regex; `negate` inverts).", false, newConfig[vallyTextConfig], outputMatches(false, false)},
		{"output-not-matches", "Vally: the final output does not match `pattern`.", false, newConfig[vallyTextConfig], outputMatches(true, false)},
		{"transcript-contains", "Vally: the transcript contains `substring`.", false, newConfig[vallyTextConfig], transcriptContains},
		{"transcript-matches", "Vally: the transcript matches `pattern`.", false, newConfig[vallyTextConfig], outputMatches(false, true)},
		{"file-exists", "Vally: a workspace file matches the glob `path`.", true, newConfig[vallyTextConfig], fileExists(false)},
		{"file-not-exists", "Vally: no workspace file matches the glob `path`.", true, newConfig[vallyTextConfig], fileExists(true)},
		{"file-contains", "Vally: a file matching `path` contains `value` (case-sensitive).", true, newConfig[vallyTextConfig], fileContent(false, false)},
		{"file-not-contains", "Vally: no file matching `path` contains `value`.", true, newConfig[vallyTextConfig], fileContent(true, false)},
		{"file-matches", "Vally: a file matching `path` matches `pattern`.", true, newConfig[vallyTextConfig], fileContent(false, true)},
		{"file-not-matches", "Vally: no file matching `path` matches `pattern`.", true, newConfig[vallyTextConfig], fileContent(true, true)},
		{"diff-contains", "Vally: a changed file's content contains `value`.", false, newConfig[vallyTextConfig], diffCheck("contains")},
		{"diff-not-contains", "Vally: no changed file's content contains `value`.", false, newConfig[vallyTextConfig], diffCheck("not-contains")},
		{"diff-empty", "Vally: the run changed no workspace file.", false, newConfig[vallyTextConfig], diffCheck("empty")},
		{"skill-invocation", "Vally: every `required` skill was invoked and no `disallowed` one.", false, newConfig[vallySkillsConfig], compileVallySkills},
		{"tool-calls", "Vally: `required` tool calls happened, `disallowed` ones did not, `sequence` in order.", false, newConfig[vallyToolsConfig], compileVallyTools},
		{"tool-call-count", "Vally: the number of tool calls is within `min`/`max`.", false, newConfig[vallyCountConfig], countCheck("tool calls", func(r *results.AgentRun) (float64, bool) { return float64(toolCallCount(r)), true })},
		{"turn-count", "Vally: the number of turns is within `min`/`max`.", false, newConfig[vallyCountConfig], countCheck("turns", runTurns)},
		{"token-budget", "Vally: input + output tokens are within `max`.", false, newConfig[vallyCountConfig], countCheck("tokens", func(r *results.AgentRun) (float64, bool) { n, ok := totalTokens(r); return float64(n), ok })},
		{"wall-time", "Vally: the run's duration in milliseconds is within `max`.", false, newConfig[vallyCountConfig], countCheck("milliseconds", func(r *results.AgentRun) (float64, bool) { return float64(r.DurationMS), true })},
		{"error-count", "Vally: the number of error events is within `max` (default 0).", false, newConfig[vallyCountConfig], countCheck("errors", runErrors)},
		{"completed", "Vally: the agent finished: non-empty output and no error.", false, nil, compileCompleted(true)},
		{"exit-success", "Vally: the final output is not empty.", false, nil, compileCompleted(false)},
		{"vally-constraints", "Vally stimulus constraints: max_turns, max_tokens, expect/reject tools and skills.", false, newConfig[vallyConstraintsConfig], compileConstraints},
		{"pairwise", "Vally: an LLM judge comparing two runs; it runs only when runs are compared (vally compare), so a single run skips it.", false, nil, compilePairwise},
	} {
		Register(&Type{Name: t.name, Summary: t.summary, ReadsWorkspace: t.workspace, Config: t.config, Compile: t.compile})
	}
}

type vallyTextConfig struct {
	Substring     string `yaml:"substring"`
	Value         string `yaml:"value"`
	Pattern       string `yaml:"pattern"`
	Negate        bool   `yaml:"negate"`
	Path          string `yaml:"path"`
	CaseSensitive bool   `yaml:"case_sensitive"`
}

func pass(def *spec.Grader, ok bool, yes, no string, details map[string]any) *results.GraderResult {
	if ok {
		return result(def, 1, true, yes, details)
	}
	return result(def, 0, false, no, details)
}

// outputContains: Vally's output-contains compares case-insensitively unless case_sensitive
// is true, as its reference says (both sides lower-cased).
func outputContains(not bool) func(*spec.Grader, *Env) (Grader, spec.Diagnostics) {
	return func(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
		cfg := configOf[vallyTextConfig](def)
		sub := cmp.Or(cfg.Substring, cfg.Value)
		if sub == "" {
			return nothingToCheck(def, "substring")
		}
		want := !(not != cfg.Negate) // contains is wanted unless exactly one of not/negate
		needle := sub
		if !cfg.CaseSensitive {
			needle = strings.ToLower(sub)
		}
		return GraderFunc(func(_ context.Context, in *Input) (*results.GraderResult, error) {
			out := runOf(in).FinalOutput
			if !cfg.CaseSensitive {
				out = strings.ToLower(out)
			}
			has := strings.Contains(out, needle)
			return pass(def, has == want, fmt.Sprintf("Output check passed for %q", sub),
				map[bool]string{true: "Output does not contain " + fmt.Sprintf("%q", sub), false: "Output contains " + fmt.Sprintf("%q", sub)}[want], nil), nil
		}), nil
	}
}

// compilePairwise: Vally runs pairwise judges only when it compares two runs (vally compare);
// a run on its own skips them, counting in no score.
func compilePairwise(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	return GraderFunc(func(context.Context, *Input) (*results.GraderResult, error) {
		return skipped(def, "Skipped: pairwise compares two runs of a stimulus and runs only when runs are compared (vally compare)"), nil
	}), nil
}

func transcriptContains(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[vallyTextConfig](def)
	sub := cmp.Or(cfg.Substring, cfg.Value)
	if sub == "" {
		return nothingToCheck(def, "substring")
	}
	return GraderFunc(func(_ context.Context, in *Input) (*results.GraderResult, error) {
		has := strings.Contains(transcriptText(runOf(in)), sub)
		return pass(def, has != cfg.Negate, fmt.Sprintf("Transcript check passed for %q", sub), fmt.Sprintf("Transcript check failed for %q", sub), nil), nil
	}), nil
}

// transcriptText is the run's transcript as text: messages, tool calls with their arguments and
// results, one per line.
func transcriptText(run *results.AgentRun) string {
	var b strings.Builder
	for _, e := range run.Transcript {
		b.WriteString(e.Type + " " + e.Name + " " + e.Content + " " + e.Message)
		if len(e.Arguments) > 0 {
			fmt.Fprintf(&b, " %v", e.Arguments)
		}
		if e.Result != nil {
			fmt.Fprintf(&b, " %v", e.Result)
		}
		b.WriteByte('\n')
	}
	b.WriteString(run.FinalOutput)
	return b.String()
}

func outputMatches(not, transcript bool) func(*spec.Grader, *Env) (Grader, spec.Diagnostics) {
	return func(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
		cfg := configOf[vallyTextConfig](def)
		if cfg.Pattern == "" {
			return nothingToCheck(def, "pattern")
		}
		re, d := compileJSRegex(def, "pattern", cfg.Pattern)
		if d != nil {
			return nil, spec.Diagnostics{*d}
		}
		want := not == cfg.Negate // a match is wanted unless exactly one of not/negate
		return GraderFunc(func(_ context.Context, in *Input) (*results.GraderResult, error) {
			text := runOf(in).FinalOutput
			if transcript {
				text = transcriptText(runOf(in))
			}
			matched, err := jsMatch(re, text)
			if err != nil {
				return nil, err
			}
			msg := "Output does not match " + cfg.Pattern
			if !want {
				msg = "Output matches " + cfg.Pattern
			}
			return pass(def, matched == want, "Pattern check passed: "+cfg.Pattern, msg, nil), nil
		}), nil
	}
}

// workspaceGlob lists the files of the run's workspace matching a glob, dotfiles included
// (Vally 0.12); a run without a workspace gets the grader's failing result instead.
func workspaceGlob(def *spec.Grader, in *Input, pattern string) ([]string, *results.GraderResult, error) {
	if in == nil || in.Workspace == "" {
		return nil, result(def, 0, false, "No workspace directory available", nil), nil
	}
	dir := in.Workspace
	var out []string
	pattern = strings.TrimPrefix(filepath.ToSlash(pattern), "./")
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if ok, _ := doublestar.Match(pattern, rel); ok {
			out = append(out, rel)
		}
		return nil
	})
	return out, nil, err
}

func fileExists(not bool) func(*spec.Grader, *Env) (Grader, spec.Diagnostics) {
	return func(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
		cfg := configOf[vallyTextConfig](def)
		if cfg.Path == "" {
			return nothingToCheck(def, "path")
		}
		if !doublestar.ValidatePattern(filepath.ToSlash(cfg.Path)) {
			return nil, spec.Diagnostics{spec.Errorf(def.ConfigAt("path"), "config.path", "fix the glob", "grader %q: invalid glob %q", def.Name, cfg.Path)}
		}
		return GraderFunc(func(_ context.Context, in *Input) (*results.GraderResult, error) {
			found, res, err := workspaceGlob(def, in, cfg.Path)
			if res != nil || err != nil {
				return res, err
			}
			exists := len(found) > 0
			not := not != cfg.Negate
			return pass(def, exists != not, fmt.Sprintf("File check passed for %s", cfg.Path),
				map[bool]string{false: "No file matches " + cfg.Path, true: "A file matches " + cfg.Path + ": " + strings.Join(found, ", ")}[exists],
				map[string]any{"path": cfg.Path, "matches": orEmpty(found)}), nil
		}), nil
	}
}

func fileContent(not, regex bool) func(*spec.Grader, *Env) (Grader, spec.Diagnostics) {
	return func(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
		cfg := configOf[vallyTextConfig](def)
		what := cfg.Value
		var re *jsRegexp
		if regex {
			what = cfg.Pattern
			if what == "" {
				return nothingToCheck(def, "path", "pattern")
			}
			var d *spec.Diagnostic
			if re, d = compileJSRegex(def, "pattern", cfg.Pattern); d != nil {
				return nil, spec.Diagnostics{*d}
			}
		}
		if cfg.Path == "" || what == "" {
			return nothingToCheck(def, "path", map[bool]string{true: "pattern", false: "value"}[regex])
		}
		not := not != cfg.Negate
		return GraderFunc(func(_ context.Context, in *Input) (*results.GraderResult, error) {
			files, res, err := workspaceGlob(def, in, cfg.Path)
			if res != nil || err != nil {
				return res, err
			}
			var hits []string
			for _, f := range files {
				data, err := os.ReadFile(filepath.Join(in.Workspace, filepath.FromSlash(f)))
				if err != nil {
					continue
				}
				ok := strings.Contains(string(data), what)
				if regex {
					if ok, err = jsMatch(re, string(data)); err != nil {
						return nil, err
					}
				}
				if ok {
					hits = append(hits, f)
				}
			}
			details := map[string]any{"path": cfg.Path, "files": orEmpty(files), "matching": orEmpty(hits)}
			if not {
				return pass(def, len(hits) == 0, fmt.Sprintf("No file matching %s has %q", cfg.Path, what), fmt.Sprintf("%s has %q", strings.Join(hits, ", "), what), details), nil
			}
			if len(files) == 0 {
				return result(def, 0, false, "No file matches "+cfg.Path, details), nil
			}
			return pass(def, len(hits) > 0, fmt.Sprintf("%s has %q", strings.Join(hits, ", "), what), fmt.Sprintf("No file matching %s has %q", cfg.Path, what), details), nil
		}), nil
	}
}

func diffCheck(kind string) func(*spec.Grader, *Env) (Grader, spec.Diagnostics) {
	return func(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
		cfg := configOf[vallyTextConfig](def)
		value := cmp.Or(cfg.Value, cfg.Substring)
		if kind != "empty" && value == "" {
			return nothingToCheck(def, "value")
		}
		return GraderFunc(func(_ context.Context, in *Input) (*results.GraderResult, error) {
			changes := runOf(in).ChangedFiles
			if kind == "empty" {
				return pass(def, len(changes) == 0, "The run changed no file", fmt.Sprintf("The run changed %d file(s)", len(changes)), nil), nil
			}
			var hits []string
			for _, c := range changes {
				if strings.Contains(c.Path+"\n"+c.Content, value) {
					hits = append(hits, c.Path)
				}
			}
			if kind == "contains" {
				return pass(def, len(hits) > 0, "The changes contain "+fmt.Sprintf("%q", value), "No change contains "+fmt.Sprintf("%q", value), nil), nil
			}
			return pass(def, len(hits) == 0, "No change contains "+fmt.Sprintf("%q", value), strings.Join(hits, ", ")+" contain "+fmt.Sprintf("%q", value), nil), nil
		}), nil
	}
}

type vallySkillsConfig struct {
	Required   []string `yaml:"required"`
	Disallowed []string `yaml:"disallowed"`
}

func compileVallySkills(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[vallySkillsConfig](def)
	if len(cfg.Required)+len(cfg.Disallowed) == 0 {
		return nothingToCheck(def, "required", "disallowed")
	}
	return GraderFunc(func(_ context.Context, in *Input) (*results.GraderResult, error) {
		return skillVerdict(def, skillsInvoked(runOf(in)), cfg.Required, cfg.Disallowed), nil
	}), nil
}

func skillVerdict(def *spec.Grader, invoked, required, disallowed []string) *results.GraderResult {
	var failures []string
	for _, s := range required {
		if !containsString(invoked, s) {
			failures = append(failures, "Required skill not invoked: "+s)
		}
	}
	for _, s := range disallowed {
		if containsString(invoked, s) {
			failures = append(failures, "Disallowed skill invoked: "+s)
		}
	}
	details := map[string]any{"required": required, "disallowed": disallowed, "invoked": orEmpty(invoked)}
	if len(failures) > 0 {
		return result(def, 0, false, strings.Join(failures, "; "), details)
	}
	return result(def, 1, true, "Skill invocations as expected", details)
}

func containsString(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// toolMatch is one Vally ToolMatch: unanchored JavaScript regexes on the tool name, its
// command and path arguments, named arguments, and the serialized arguments.
type toolMatch struct {
	desc                string
	name, command, path *jsRegexp
	args                map[string]*jsRegexp
	pattern             *jsRegexp
}

type vallyToolsConfig struct {
	Required   []*spec.Value `yaml:"required"`
	Disallowed []*spec.Value `yaml:"disallowed"`
	Sequence   []*spec.Value `yaml:"sequence"`
}

func compileToolMatches(def *spec.Grader, key string, items []*spec.Value, diags *spec.Diagnostics) []*toolMatch {
	var out []*toolMatch
	for i, n := range items {
		m := &toolMatch{args: map[string]*jsRegexp{}}
		var fields map[string]any
		if err := n.Decode(&fields); err != nil || fields == nil {
			var s string
			if n.Decode(&s) != nil || s == "" {
				*diags = append(*diags, spec.Errorf(n.Pos(), spec.KeyPath("config", key, i), "write a tool name or {name, command, path, args, pattern}", "grader %q: %s[%d] names no tool", def.Name, key, i))
				continue
			}
			fields = map[string]any{"name": s}
		}
		var parts []string
		compile := func(field, src string) *jsRegexp {
			re, d := compileJSRegex(def, key, src)
			if d != nil {
				*diags = append(*diags, *d)
				return nil
			}
			parts = append(parts, field+"="+src)
			return re
		}
		for _, f := range []struct {
			key string
			dst **jsRegexp
		}{{"name", &m.name}, {"command", &m.command}, {"path", &m.path}, {"pattern", &m.pattern}} {
			if v, ok := fields[f.key].(string); ok && v != "" {
				*f.dst = compile(f.key, v)
			}
		}
		if a, ok := fields["args"].(map[string]any); ok {
			for k, v := range a {
				if s, ok := v.(string); ok {
					m.args[k] = compile("args."+k, s)
				}
			}
		}
		m.desc = strings.Join(parts, " ")
		out = append(out, m)
	}
	return out
}

func (m *toolMatch) matches(c results.ToolCall) bool {
	test := func(re *jsRegexp, s string) bool {
		if re == nil {
			return true
		}
		ok, _ := re.MatchString(s)
		return ok
	}
	command := c.Command
	if command == "" {
		command = commandArgument(c.Arguments)
	}
	if !test(m.name, c.Name) || !test(m.command, command) || !test(m.path, pathArgument(c.Arguments)) || !test(m.pattern, fmt.Sprintf("%v", c.Arguments)) {
		return false
	}
	for k, re := range m.args {
		if !test(re, fmt.Sprintf("%v", c.Arguments[k])) {
			return false
		}
	}
	return true
}

func compileVallyTools(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[vallyToolsConfig](def)
	var diags spec.Diagnostics
	required := compileToolMatches(def, "required", cfg.Required, &diags)
	disallowed := compileToolMatches(def, "disallowed", cfg.Disallowed, &diags)
	sequence := compileToolMatches(def, "sequence", cfg.Sequence, &diags)
	if diags.HasErrors() {
		return nil, diags
	}
	if len(required)+len(disallowed)+len(sequence) == 0 {
		return nothingToCheck(def, "required", "disallowed", "sequence")
	}
	return GraderFunc(func(_ context.Context, in *Input) (*results.GraderResult, error) {
		calls := toolCalls(runOf(in))
		var failures []string
		for _, m := range required {
			if !anyCall(calls, m) {
				failures = append(failures, "Required tool call missing: "+m.desc)
			}
		}
		for _, m := range disallowed {
			if anyCall(calls, m) {
				failures = append(failures, "Disallowed tool call made: "+m.desc)
			}
		}
		next := 0
		for _, c := range calls {
			if next < len(sequence) && sequence[next].matches(c) {
				next++
			}
		}
		if next < len(sequence) {
			failures = append(failures, "Tool call sequence incomplete at: "+sequence[next].desc)
		}
		if len(failures) > 0 {
			return result(def, 0, false, strings.Join(failures, "; "), nil), nil
		}
		return result(def, 1, true, "Tool calls as expected", nil), nil
	}), nil
}

func anyCall(calls []results.ToolCall, m *toolMatch) bool {
	for _, c := range calls {
		if m.matches(c) {
			return true
		}
	}
	return false
}

type vallyCountConfig struct {
	Min any `yaml:"min"`
	Max any `yaml:"max"`
}

// vallyBound reads a min/max: a number, or for wall-time a duration with its unit ("120s").
func vallyBound(v any, durations bool) (*float64, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case int:
		f := float64(x)
		return &f, true
	case float64:
		return &x, true
	case string:
		if d, err := time.ParseDuration(strings.TrimSpace(x)); err == nil && durations {
			f := float64(d.Milliseconds())
			return &f, true
		}
	}
	return nil, false
}

func countCheck(what string, measure func(*results.AgentRun) (float64, bool)) func(*spec.Grader, *Env) (Grader, spec.Diagnostics) {
	return func(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
		raw := configOf[vallyCountConfig](def)
		var cfg struct{ Min, Max *float64 }
		for _, b := range []struct {
			key string
			v   any
			dst **float64
		}{{"min", raw.Min, &cfg.Min}, {"max", raw.Max, &cfg.Max}} {
			var ok bool
			if *b.dst, ok = vallyBound(b.v, what == "milliseconds"); !ok {
				return nil, spec.Diagnostics{spec.Errorf(def.ConfigAt(b.key), "config."+b.key, "write a number (wall-time: a duration such as 120s)",
					"grader %q: %s %v is not a number", def.Name, b.key, b.v)}
			}
		}
		if cfg.Min == nil && cfg.Max == nil {
			if what != "errors" {
				return nothingToCheck(def, "min", "max")
			}
			zero := 0.0
			cfg.Max = &zero // error-count: no errors by default
		}
		return GraderFunc(func(_ context.Context, in *Input) (*results.GraderResult, error) {
			v, known := measure(runOf(in))
			if !known {
				return skipped(def, fmt.Sprintf("Skipped: the agent reported no %s", what)), nil
			}
			switch {
			case cfg.Max != nil && v > *cfg.Max:
				return result(def, 0, false, fmt.Sprintf("%g %s exceed the maximum %g", v, what, *cfg.Max), map[string]any{"value": v}), nil
			case cfg.Min != nil && v < *cfg.Min:
				return result(def, 0, false, fmt.Sprintf("%g %s are below the minimum %g", v, what, *cfg.Min), map[string]any{"value": v}), nil
			}
			return result(def, 1, true, fmt.Sprintf("%g %s within bounds", v, what), map[string]any{"value": v}), nil
		}), nil
	}
}

func runTurns(r *results.AgentRun) (float64, bool) {
	if u := r.SessionDigest.Usage; u != nil && u.Turns > 0 {
		return float64(u.Turns), true
	}
	return 0, false
}

func runErrors(r *results.AgentRun) (float64, bool) {
	n := 0
	for _, e := range r.Transcript {
		if e.Type == results.EventError {
			n++
		}
	}
	return float64(n), true
}

func compileCompleted(strict bool) func(*spec.Grader, *Env) (Grader, spec.Diagnostics) {
	return func(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
		return GraderFunc(func(_ context.Context, in *Input) (*results.GraderResult, error) {
			r := runOf(in)
			if strings.TrimSpace(r.FinalOutput) == "" {
				return result(def, 0, false, "The agent's output is empty", nil), nil
			}
			if strict {
				if n, _ := runErrors(r); n > 0 || r.AgentError != "" {
					return result(def, 0, false, "The run had errors: "+r.AgentError, nil), nil
				}
			}
			return result(def, 1, true, "The agent completed", nil), nil
		}), nil
	}
}

type vallyConstraintsConfig struct {
	MaxTurns     int           `yaml:"max_turns"`
	MaxTokens    int64         `yaml:"max_tokens"`
	ExpectTools  []*spec.Value `yaml:"expect_tools"`
	RejectTools  []*spec.Value `yaml:"reject_tools"`
	ExpectSkills []string      `yaml:"expect_skills"`
	RejectSkills []string      `yaml:"reject_skills"`
}

// compileConstraints grades a stimulus's constraints: turn and token limits (passing when the
// agent reports no count), expected and rejected tools and skills.
func compileConstraints(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[vallyConstraintsConfig](def)
	var diags spec.Diagnostics
	expect := compileToolMatches(def, "expect_tools", cfg.ExpectTools, &diags)
	reject := compileToolMatches(def, "reject_tools", cfg.RejectTools, &diags)
	if diags.HasErrors() {
		return nil, diags
	}
	return GraderFunc(func(_ context.Context, in *Input) (*results.GraderResult, error) {
		r := runOf(in)
		var failures []string
		checks := 0
		if cfg.MaxTurns > 0 {
			checks++
			if n, ok := runTurns(r); ok && n > float64(cfg.MaxTurns) {
				failures = append(failures, fmt.Sprintf("%g turns exceed max_turns %d", n, cfg.MaxTurns))
			}
		}
		if cfg.MaxTokens > 0 {
			checks++
			if n, ok := totalTokens(r); ok && n > cfg.MaxTokens {
				failures = append(failures, fmt.Sprintf("%d tokens exceed max_tokens %d", n, cfg.MaxTokens))
			}
		}
		calls := toolCalls(r)
		for _, m := range expect {
			checks++
			if !anyCall(calls, m) {
				failures = append(failures, "Expected tool not used: "+m.desc)
			}
		}
		for _, m := range reject {
			checks++
			if anyCall(calls, m) {
				failures = append(failures, "Rejected tool used: "+m.desc)
			}
		}
		invoked := skillsInvoked(r)
		for _, s := range cfg.ExpectSkills {
			checks++
			if !containsString(invoked, s) {
				failures = append(failures, "Expected skill not invoked: "+s)
			}
		}
		for _, s := range cfg.RejectSkills {
			checks++
			if containsString(invoked, s) {
				failures = append(failures, "Rejected skill invoked: "+s)
			}
		}
		return checkResult(def, checks, failures, "All constraints met", nil), nil
	}), nil
}
