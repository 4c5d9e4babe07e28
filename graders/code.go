package graders

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func init() {
	Register(&Type{
		Name:    "code",
		Summary: "Evaluates assertions (Python, JavaScript or expr) against the agent's output, transcript and tool calls; every assertion must be truthy.",
		Config:  newConfig[codeConfig],
		Compile: compileCode,
	})
}

// Evaluation bounds of a single assertion. Variables so tests can shrink them.
var (
	// pythonMaxSteps bounds a Python assertion (starlark execution steps: deterministic, roughly
	// bytecode instructions; about a second of work).
	pythonMaxSteps uint64 = 50_000_000
	// javascriptTimeBudget bounds a JavaScript assertion (waza's node wrapper allows 5 s).
	javascriptTimeBudget = 5 * time.Second
	// exprMemoryBudget bounds an expr assertion: every collection an expression builds or iterates
	// is charged against it (expr has no other loops).
	exprMemoryBudget uint = 1_000_000
)

// contextNames are the variables every assertion can read (docs/graders.md#code--assertions), in
// parameter order.
var contextNames = []string{"output", "outcome", "transcript", "tool_calls", "errors", "duration_ms"}

type codeConfig struct {
	Assertions []string `yaml:"assertions"`
	Language   string   `yaml:"language"`
}

// assertionEngine is one language: it compiles assertions once and evaluates them per run.
type assertionEngine interface {
	// begin prepares one run's context (built once, shared by every assertion of the run).
	begin(ctx *evalContext) runEvaluator
}

type runEvaluator interface {
	// eval evaluates assertion i: ok when truthy; errText is set when it raised an error.
	eval(i int) (ok bool, errText string)
	end()
}

// compiledAssertion is the outcome of compiling one assertion.
type assertionError struct {
	line, col int // 1-based, inside the assertion; 0 when unknown
	msg       string
	fix       string
}

type codeGrader struct {
	def        *spec.Grader
	assertions []string
	broken     []string // why assertion i did not compile ("" when it did): it fails every run
	language   string
	engine     assertionEngine
	needs      contextNeeds
}

var languages = []string{"python", "javascript", "expr"}

func compileCode(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[codeConfig](def)
	var diags spec.Diagnostics
	lang := cfg.Language
	if lang == "" {
		lang = "python"
	}
	known := false
	for _, l := range languages {
		known = known || l == lang
	}
	if !known {
		diags = append(diags, spec.Errorf(def.ConfigAt("language"), "config.language", "use one of: "+strings.Join(languages, ", "),
			"grader %q: unknown language %q", def.Name, cfg.Language))
	}
	if diags.HasErrors() {
		return nil, diags
	}
	if len(cfg.Assertions) == 0 {
		return checksNothing(def, "assertions")
	}

	var engine assertionEngine
	var errs []*assertionError
	switch lang {
	case "python":
		engine, errs = compilePython(cfg.Assertions)
	case "javascript":
		engine, errs = compileJavaScript(cfg.Assertions)
	case "expr":
		engine, errs = compileExpr(cfg.Assertions)
	}
	// An assertion that does not compile here fails in every run, as waza counts an assertion
	// that raises: the suite still runs, and the warning says what to write instead.
	broken := make([]string, len(cfg.Assertions))
	for i, e := range errs {
		if e == nil {
			continue
		}
		d := assertionDiagnostic(def, lang, i, cfg.Assertions[i], e)
		d.Severity = spec.SevWarning
		d.Message += "; it counts as failed in every run"
		diags = append(diags, d)
		broken[i] = e.msg
	}
	return &codeGrader{def: def, assertions: cfg.Assertions, broken: broken, language: lang, engine: engine, needs: neededContext(cfg.Assertions)}, diags
}

// compileEach compiles every assertion with compile; an empty one is an error without it. A
// program is nil where its error is not.
func compileEach[P any](assertions []string, compile func(src string) (P, *assertionError)) ([]P, []*assertionError) {
	programs := make([]P, len(assertions))
	errs := make([]*assertionError, len(assertions))
	for i, src := range assertions {
		if strings.TrimSpace(src) == "" {
			errs[i] = &assertionError{msg: "the assertion is empty"}
			continue
		}
		p, err := compile(src)
		if err != nil {
			errs[i] = err
			continue
		}
		programs[i] = p
	}
	return programs, errs
}

func assertionDiagnostic(def *spec.Grader, lang string, i int, src string, e *assertionError) spec.Diagnostic {
	pos := def.ConfigTextAt(e.line, e.col, "assertions", i)
	where := ""
	if e.col > 0 {
		if strings.Contains(src, "\n") {
			where = fmt.Sprintf(" (line %d, column %d of the assertion)", e.line, e.col)
		} else {
			where = fmt.Sprintf(" (column %d of the assertion)", e.col)
		}
	}
	fix := e.fix
	if fix == "" {
		fix = "write one " + languageTitle(lang) + " expression; see docs/graders.md#code--assertions"
	}
	return spec.Errorf(pos, spec.KeyPath("config", "assertions", i), fix,
		"grader %q: %s assertion %q%s: %s", def.Name, lang, src, where, e.msg)
}

func languageTitle(lang string) string {
	switch lang {
	case "javascript":
		return "JavaScript"
	case "python":
		return "Python"
	}
	return lang
}

func (g *codeGrader) Grade(ctx context.Context, in *Input) (*results.GraderResult, error) {
	ec := newEvalContext(runOf(in), g.needs)
	ev := g.engine.begin(ec)
	defer ev.end()
	var failures []string
	for i, a := range g.assertions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if g.broken[i] != "" {
			failures = append(failures, "Failed: "+a+": "+g.broken[i])
			continue
		}
		ok, errText := ev.eval(i)
		switch {
		case errText != "":
			failures = append(failures, "Failed: "+a+": "+errText)
		case !ok:
			failures = append(failures, "Failed: "+a)
		}
	}
	total := len(g.assertions)
	passed := total - len(failures)
	feedback := "All assertions passed"
	if len(failures) > 0 {
		feedback = strings.Join(failures, "; ")
	}
	return result(g.def, float64(passed)/float64(total), len(failures) == 0, feedback, map[string]any{
		"total_assertions":  total,
		"passed_assertions": passed,
		"failures":          failures,
		"language":          g.language,
	}), nil
}

// contextNeeds says which of the costlier context variables the assertions may read; the others
// are left empty. The test is a conservative substring search over the assertion sources.
type contextNeeds struct {
	transcript, toolCalls, errors bool
}

func neededContext(assertions []string) contextNeeds {
	all := strings.Join(assertions, "\n")
	return contextNeeds{
		transcript: strings.Contains(all, "transcript"),
		toolCalls:  strings.Contains(all, "tool_calls"),
		errors:     strings.Contains(all, "errors"),
	}
}

// evalContext is one run's assertion context as plain Go values (JSON-like: nil, bool, float64,
// int64, string, []any, map[string]any), converted by each engine into its own values.
type evalContext struct {
	output     string
	transcript []any
	toolCalls  []any
	errors     []any
	durationMS int64
}

func newEvalContext(run *results.AgentRun, needs contextNeeds) *evalContext {
	ec := &evalContext{output: run.FinalOutput, durationMS: run.DurationMS}
	if needs.transcript || needs.errors {
		ec.transcript = make([]any, 0, len(run.Transcript))
		for _, e := range run.Transcript {
			ec.transcript = append(ec.transcript, eventValue(e))
		}
		if needs.errors {
			ec.errors = transcriptErrors(ec.transcript)
		}
	}
	if needs.toolCalls {
		calls := toolCalls(run)
		ec.toolCalls = make([]any, 0, len(calls))
		for _, c := range calls {
			args := plainValue(c.Arguments)
			if args == nil {
				args = map[string]any{}
			}
			ec.toolCalls = append(ec.toolCalls, map[string]any{
				"name":      c.Name,
				"arguments": args,
				"result":    plainValue(c.Result),
				"success":   c.Success,
			})
		}
	}
	return ec
}

// eventValue is a transcript event as it appears in the results JSON (same keys, empty ones
// left out). Built directly: a JSON round trip per event costs more than the assertions.
func eventValue(e results.Event) any {
	m := make(map[string]any, 8)
	m["type"] = e.Type
	put := func(key, v string) {
		if v != "" {
			m[key] = v
		}
	}
	put("role", e.Role)
	put("content", e.Content)
	put("id", e.ID)
	put("name", e.Name)
	if len(e.Arguments) > 0 {
		m["arguments"] = plainValue(e.Arguments)
	}
	if e.Result != nil {
		m["result"] = plainValue(e.Result)
	}
	if e.Success != nil {
		m["success"] = *e.Success
	}
	if e.DurationMS != 0 {
		m["duration_ms"] = e.DurationMS
	}
	put("path", e.Path)
	put("message", e.Message)
	if len(e.Raw) > 0 {
		var raw any
		if json.Unmarshal(e.Raw, &raw) == nil {
			m["raw"] = raw
		}
	}
	put("tool_call_id", e.ToolCallID)
	put("tool_name", e.ToolName)
	if e.ToolResult != nil {
		m["tool_result"] = plainValue(e.ToolResult)
	}
	return m
}

// transcriptErrors is waza's `errors`: the events whose type contains "error" or whose content
// (as text) contains "error" — so an assistant message that merely says "error" counts.
func transcriptErrors(transcript []any) []any {
	out := []any{}
	for _, t := range transcript {
		m, _ := t.(map[string]any)
		typ, _ := m["type"].(string)
		content := ""
		switch c := m["content"].(type) {
		case nil:
		case string:
			content = c
		default:
			b, _ := json.Marshal(c)
			content = string(b)
		}
		if strings.Contains(typ, "error") || strings.Contains(content, "error") {
			out = append(out, t)
		}
	}
	return out
}

// plainValue normalizes a decoded-JSON-like Go value; anything else goes through JSON.
func plainValue(v any) any {
	switch t := v.(type) {
	case nil, bool, string, float64, int64:
		return t
	case int:
		return int64(t)
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = plainValue(x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = plainValue(x)
		}
		return out
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return fmt.Sprint(v)
	}
	return out
}

// sortedKeys returns a map's keys in order, so every engine builds its objects deterministically.
func sortedKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}
