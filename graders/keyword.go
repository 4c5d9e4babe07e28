package graders

import (
	"context"
	"strings"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// keyword is the keyword grader of some waza releases, which suites still declare: substrings
// that must or must not occur, case-insensitive, one check each.
func init() {
	Register(&Type{
		Name:    "keyword",
		Summary: "Checks that keywords occur (must_contain, alias keywords) or do not occur (must_not_contain) in the output, case-insensitive.",
		Config:  newConfig[keywordConfig],
		Compile: compileKeyword,
	})
}

type keywordConfig struct {
	MustContain    []string `yaml:"must_contain"`
	Keywords       []string `yaml:"keywords"` // an older name of must_contain
	MustNotContain []string `yaml:"must_not_contain"`
}

func compileKeyword(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[keywordConfig](def)
	must := append(append([]string(nil), cfg.MustContain...), cfg.Keywords...)
	if len(must)+len(cfg.MustNotContain) == 0 {
		return checksNothing(def, "must_contain", "must_not_contain")
	}
	return GraderFunc(func(_ context.Context, in *Input) (*results.GraderResult, error) {
		low := strings.ToLower(runOf(in).FinalOutput)
		var failures []string
		for _, k := range must {
			if !strings.Contains(low, strings.ToLower(k)) {
				failures = append(failures, "Missing expected keyword: "+k)
			}
		}
		for _, k := range cfg.MustNotContain {
			if strings.Contains(low, strings.ToLower(k)) {
				failures = append(failures, "Found forbidden keyword: "+k)
			}
		}
		return checkResult(def, len(must)+len(cfg.MustNotContain), failures, "All keyword checks passed",
			map[string]any{"must_contain": must, "must_not_contain": cfg.MustNotContain}), nil
	}), nil
}
