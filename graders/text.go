package graders

import (
	"context"
	"fmt"
	"strings"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func init() {
	Register(&Type{
		Name:    "text",
		Summary: "Checks the agent's final output for required and forbidden substrings (case-insensitive or case-sensitive) and regular expressions.",
		Config:  newConfig[textConfig],
		Compile: compileText,
	})
	Register(&Type{
		Name:    "regex",
		Summary: "Checks the agent's final output against regular expressions that must or must not match (the older name of text's regex lists).",
		Config:  newConfig[regexConfig],
		Compile: compileRegexGrader,
	})
}

type textConfig struct {
	Contains []string `yaml:"contains"`
	// ContainsAny is one check: at least one of the substrings appears (case-insensitive).
	// waza ignores the key; suites write it (and expected.output_contains_any) meaning "any of".
	ContainsAny   []string `yaml:"contains_any"`
	NotContains   []string `yaml:"not_contains"`
	ContainsCS    []string `yaml:"contains_cs"`
	NotContainsCS []string `yaml:"not_contains_cs"`
	RegexMatch    []string `yaml:"regex_match"`
	RegexNotMatch []string `yaml:"regex_not_match"`
	// Pattern is a one-item regex_match, as suites (and waza's generator) write it.
	Pattern string `yaml:"pattern"`
}

type regexConfig struct {
	MustMatch    []string `yaml:"must_match"`
	MustNotMatch []string `yaml:"must_not_match"`
	// Pattern is a one-item must_match, as suites write it.
	Pattern string `yaml:"pattern"`
}

// textGrader implements both `text` and the legacy `regex` (whose two lists are text's regex lists).
type textGrader struct {
	def         *spec.Grader
	cfg         textConfig
	containsLow []string // contains, lower-cased once
	anyLow      []string // contains_any, lower-cased once
	notLow      []string
	match       []*pattern
	notMatch    []*pattern
	allPassed   string
	details     func() map[string]any
}

func compileText(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[textConfig](def)
	matchKey := "regex_match"
	if cfg.Pattern != "" {
		if len(cfg.RegexMatch) == 0 {
			matchKey = "pattern"
		}
		cfg.RegexMatch = append(append([]string(nil), cfg.RegexMatch...), cfg.Pattern)
	}
	g, diags := newTextGrader(def, cfg, matchKey, "regex_not_match")
	if diags.HasErrors() {
		return nil, diags
	}
	if g.checks() == 0 {
		return checksNothing(def, "contains", "contains_any", "not_contains", "contains_cs", "not_contains_cs", "regex_match", "regex_not_match")
	}
	g.allPassed = "All text checks passed"
	g.details = func() map[string]any {
		d := map[string]any{
			"contains": cfg.Contains, "not_contains": cfg.NotContains,
			"contains_cs": cfg.ContainsCS, "not_contains_cs": cfg.NotContainsCS,
			"regex_match": cfg.RegexMatch, "regex_not_match": cfg.RegexNotMatch,
		}
		if len(cfg.ContainsAny) > 0 {
			d["contains_any"] = cfg.ContainsAny
		}
		return d
	}
	return g, nil
}

func compileRegexGrader(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	rc := configOf[regexConfig](def)
	match, matchKey := rc.MustMatch, "must_match"
	if rc.Pattern != "" {
		if len(rc.MustMatch) == 0 {
			match, matchKey = []string{rc.Pattern}, "pattern"
		} else {
			match = append(append([]string(nil), rc.MustMatch...), rc.Pattern)
		}
	}
	g, diags := newTextGrader(def, textConfig{RegexMatch: match, RegexNotMatch: rc.MustNotMatch}, matchKey, "must_not_match")
	if diags.HasErrors() {
		return nil, diags
	}
	if g.checks() == 0 {
		return checksNothing(def, "must_match", "must_not_match", "pattern")
	}
	g.allPassed = "All regex checks passed"
	g.details = func() map[string]any {
		return map[string]any{"must_match": match, "must_not_match": rc.MustNotMatch}
	}
	return g, nil
}

func newTextGrader(def *spec.Grader, cfg textConfig, matchKey, notMatchKey string) (*textGrader, spec.Diagnostics) {
	g := &textGrader{def: def, cfg: cfg}
	for _, s := range cfg.Contains {
		g.containsLow = append(g.containsLow, strings.ToLower(s))
	}
	for _, s := range cfg.NotContains {
		g.notLow = append(g.notLow, strings.ToLower(s))
	}
	for _, s := range cfg.ContainsAny {
		g.anyLow = append(g.anyLow, strings.ToLower(s))
	}
	var diags, ds spec.Diagnostics
	g.match, ds = compilePatterns(def, cfg.RegexMatch, matchKey)
	diags = append(diags, ds...)
	g.notMatch, ds = compilePatterns(def, cfg.RegexNotMatch, notMatchKey)
	diags = append(diags, ds...)
	return g, diags
}

func (g *textGrader) checks() int {
	c := g.cfg
	anyOf := 0
	if len(c.ContainsAny) > 0 {
		anyOf = 1
	}
	return len(c.Contains) + anyOf + len(c.NotContains) + len(c.ContainsCS) + len(c.NotContainsCS) + len(c.RegexMatch) + len(c.RegexNotMatch)
}

func (g *textGrader) Grade(_ context.Context, in *Input) (*results.GraderResult, error) {
	out := runOf(in).FinalOutput
	var failures []string
	if len(g.containsLow) > 0 || len(g.notLow) > 0 {
		low := strings.ToLower(out)
		for i, s := range g.containsLow {
			if !strings.Contains(low, s) {
				failures = append(failures, "Missing expected substring: "+g.cfg.Contains[i])
			}
		}
		for i, s := range g.notLow {
			if strings.Contains(low, s) {
				failures = append(failures, "Found forbidden substring: "+g.cfg.NotContains[i])
			}
		}
	}
	if len(g.anyLow) > 0 {
		low := strings.ToLower(out)
		found := false
		for _, s := range g.anyLow {
			found = found || strings.Contains(low, s)
		}
		if !found {
			failures = append(failures, "Missing all of the substrings: "+strings.Join(g.cfg.ContainsAny, ", "))
		}
	}
	for _, s := range g.cfg.ContainsCS {
		if !strings.Contains(out, s) {
			failures = append(failures, "Missing expected substring (case-sensitive): "+s)
		}
	}
	for _, s := range g.cfg.NotContainsCS {
		if strings.Contains(out, s) {
			failures = append(failures, "Found forbidden substring (case-sensitive): "+s)
		}
	}
	for i, re := range g.match {
		if !re.MatchString(out) {
			failures = append(failures, fmt.Sprintf("Missing expected pattern: %s", g.cfg.RegexMatch[i]))
		}
	}
	for i, re := range g.notMatch {
		if re.MatchString(out) {
			failures = append(failures, fmt.Sprintf("Found forbidden pattern: %s", g.cfg.RegexNotMatch[i]))
		}
	}
	return checkResult(g.def, g.checks(), failures, g.allPassed, g.details()), nil
}
