package graders

import (
	"context"
	"fmt"
	"strings"

	"github.com/skillgate/skillgate/internal/regex"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func init() {
	Register(&Type{
		Name:    "tool_constraint",
		Summary: "Checks which tools the agent used or must not use (with command, skill and path patterns) and limits turns and tokens.",
		Config:  newConfig[toolConstraintConfig],
		Compile: compileToolConstraint,
	})
}

type toolConstraintConfig struct {
	ExpectTools []*spec.Value `yaml:"expect_tools"`
	RejectTools []*spec.Value `yaml:"reject_tools"`
	MaxTurns    int           `yaml:"max_turns"`
	MaxTokens   int64         `yaml:"max_tokens"`
}

type toolSpecConfig struct {
	Tool           string `yaml:"tool"`
	CommandPattern string `yaml:"command_pattern"`
	SkillPattern   string `yaml:"skill_pattern"`
	PathPattern    string `yaml:"path_pattern"`
}

// toolSpec is one expect/reject entry. A plain string names a tool exactly; a mapping holds
// case-insensitive, unanchored regular expressions, as waza reads them.
type toolSpec struct {
	exactName string
	tool      *pattern
	command   *pattern
	skill     *pattern
	path      *pattern
	desc      string
}

type toolConstraintGrader struct {
	def       *spec.Grader
	cfg       toolConstraintConfig
	expect    []toolSpec
	reject    []toolSpec
	checks    int
	expectDoc []string
	rejectDoc []string
}

func compileToolConstraint(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[toolConstraintConfig](def)
	g := &toolConstraintGrader{def: def, cfg: cfg}
	g.checks = len(cfg.ExpectTools) + len(cfg.RejectTools)
	if cfg.MaxTurns > 0 {
		g.checks++
	}
	if cfg.MaxTokens > 0 {
		g.checks++
	}
	if g.checks == 0 {
		return nothingToCheck(def, "expect_tools", "reject_tools", "max_turns (> 0)", "max_tokens (> 0)")
	}
	var diags spec.Diagnostics
	g.expect, g.expectDoc = compileToolSpecs(def, cfg.ExpectTools, "expect_tools", &diags)
	g.reject, g.rejectDoc = compileToolSpecs(def, cfg.RejectTools, "reject_tools", &diags)
	if diags.HasErrors() {
		return nil, diags
	}
	return g, nil
}

func compileToolSpecs(def *spec.Grader, items []*spec.Value, key string, diags *spec.Diagnostics) ([]toolSpec, []string) {
	specs := make([]toolSpec, 0, len(items))
	docs := make([]string, 0, len(items))
	for i, item := range items {
		var s toolSpec
		switch {
		case item.IsScalar():
			s.exactName = strings.TrimSpace(item.Text())
			s.desc = s.exactName
			if s.exactName == "" || item.IsNull() {
				*diags = append(*diags, spec.Errorf(item.Pos(), spec.KeyPath("config", key, i), "write a tool name",
					"grader %q: %s[%d] is empty", def.Name, key, i))
				continue
			}
		case item.IsMapping():
			var c toolSpecConfig
			if ds := def.DecodeValue(item, &c, key, i); len(ds) > 0 {
				*diags = append(*diags, ds...)
				continue
			}
			c.Tool = strings.TrimSpace(c.Tool)
			if c.Tool == "" {
				*diags = append(*diags, spec.Errorf(item.Pos(), spec.KeyPath("config", key, i, "tool"), "add `tool: <tool name or regular expression>`",
					"grader %q: %s[%d] has no tool", def.Name, key, i))
				continue
			}
			compile := func(pattern, field string) *pattern {
				if pattern == "" {
					return nil
				}
				re, d := compilePattern(def, regex.IgnoreCase, pattern, key, i, field)
				if d != nil {
					*diags = append(*diags, *d)
				}
				return re
			}
			s.tool = compile(c.Tool, "tool")
			s.command = compile(c.CommandPattern, "command_pattern")
			s.skill = compile(c.SkillPattern, "skill_pattern")
			s.path = compile(c.PathPattern, "path_pattern")
			s.desc = describeToolSpec(c)
		default:
			*diags = append(*diags, spec.Errorf(item.Pos(), spec.KeyPath("config", key, i),
				"write a tool name or a mapping {tool, command_pattern, skill_pattern, path_pattern}",
				"grader %q: %s[%d] must be a tool name or a mapping, not %s", def.Name, key, i, item.Describe()))
			continue
		}
		specs = append(specs, s)
		docs = append(docs, s.desc)
	}
	return specs, docs
}

// describeToolSpec is waza's label: `tool (command_pattern: x, skill_pattern: y, path_pattern: z)`.
func describeToolSpec(c toolSpecConfig) string {
	var q []string
	if c.CommandPattern != "" {
		q = append(q, "command_pattern: "+c.CommandPattern)
	}
	if c.SkillPattern != "" {
		q = append(q, "skill_pattern: "+c.SkillPattern)
	}
	if c.PathPattern != "" {
		q = append(q, "path_pattern: "+c.PathPattern)
	}
	if len(q) == 0 {
		return c.Tool
	}
	return fmt.Sprintf("%s (%s)", c.Tool, strings.Join(q, ", "))
}

// matches reads the tool as the agent named it or by its canonical kind (shell, read…), and the
// command as recorded or as normalized by the agent package.
func (s *toolSpec) matches(c results.ToolCall) bool {
	if s.exactName != "" {
		return c.Name == s.exactName || (c.Kind != "" && c.Kind == s.exactName)
	}
	ok := func(re *pattern, text string) bool { return re == nil || re.MatchString(text) }
	either := func(re *pattern, a, b string) bool { return ok(re, a) || (b != "" && ok(re, b)) }
	return either(s.tool, c.Name, c.Kind) &&
		either(s.command, commandArgument(c.Arguments), c.Command) &&
		ok(s.path, pathArgument(c.Arguments)) &&
		ok(s.skill, stringArgument(c.Arguments, "skill"))
}

func stringArgument(args map[string]any, key string) string {
	s, _ := args[key].(string)
	return s
}

// pathArgument is the `path` argument, else Claude Code's `file_path`.
func pathArgument(args map[string]any) string {
	if p, ok := args["path"].(string); ok {
		return p
	}
	return stringArgument(args, "file_path")
}

func (g *toolConstraintGrader) Grade(_ context.Context, in *Input) (*results.GraderResult, error) {
	run := runOf(in)
	calls := toolCalls(run)
	used := func(s *toolSpec) bool {
		for _, c := range calls {
			if s.matches(c) {
				return true
			}
		}
		return false
	}
	var failures []string
	for i := range g.expect {
		if !used(&g.expect[i]) {
			failures = append(failures, "Expected tool not used: "+g.expect[i].desc)
		}
	}
	for i := range g.reject {
		if used(&g.reject[i]) {
			failures = append(failures, "Rejected tool was used: "+g.reject[i].desc)
		}
	}
	details := map[string]any{
		"expect_tools": g.expectDoc,
		"reject_tools": g.rejectDoc,
		"tools_used":   orEmpty(toolsUsed(run)),
	}
	usage := run.SessionDigest.Usage
	if g.cfg.MaxTurns > 0 {
		if usage == nil || usage.Turns == 0 {
			details["max_turns_note"] = "the agent reported no turn count, so the max_turns check passed"
		} else if usage.Turns > g.cfg.MaxTurns {
			failures = append(failures, fmt.Sprintf("Turn count %d exceeds max allowed %d", usage.Turns, g.cfg.MaxTurns))
		}
	}
	tokens, haveUsage := totalTokens(run)
	if g.cfg.MaxTokens > 0 {
		if !haveUsage {
			details["max_tokens_note"] = noUsageNote
		} else if tokens > g.cfg.MaxTokens {
			failures = append(failures, fmt.Sprintf("Token usage %d exceeds max allowed %d", tokens, g.cfg.MaxTokens))
		}
	}
	if usage != nil {
		details["tokens_total"] = tokens
		details["total_turns"] = usage.Turns
	}
	return checkResult(g.def, g.checks, failures, "All tool constraint checks passed", details), nil
}
