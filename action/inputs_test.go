package action

import (
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/glob"
	"github.com/skillgate/skillgate/runner"
)

func TestParseInputs(t *testing.T) {
	tests := []struct {
		name  string
		in    map[string]string
		check func(t *testing.T, c *Config)
		errs  []string // substrings of the expected errors
	}{
		{"suites list", map[string]string{InSuites: "evals/a\n evals/b , evals/**/eval.yaml\n\n"}, func(t *testing.T, c *Config) {
			if strings.Join(c.Suites, "|") != "evals/a|evals/b|evals/**/eval.yaml" {
				t.Errorf("suites %q", c.Suites)
			}
		}, nil},
		{"file baseline", map[string]string{InBaseline: "file:evals/baseline"}, func(t *testing.T, c *Config) {
			if c.Baseline != BaselineFile || c.BaselinePath != "evals/baseline" {
				t.Errorf("%s %s", c.Baseline, c.BaselinePath)
			}
		}, nil},
		{"executor alias", map[string]string{InExecutor: "mock", InTrials: "3", InMinEffect: "0.05", InCheckRun: "True", InSkipTriggers: "true", InUplift: "true"}, func(t *testing.T, c *Config) {
			if c.Executor != "mock" || c.Trials != 3 || c.MinEffect != 0.05 || !c.CheckRun || !c.SkipTriggers || !c.Uplift {
				t.Errorf("%+v", c)
			}
		}, nil},
		{"unexpanded token default", map[string]string{InGitHubToken: "${{ github.token }}"}, func(t *testing.T, c *Config) {
			if c.Token != "" {
				t.Errorf("token %q", c.Token)
			}
		}, nil},
		{"bad values", map[string]string{
			InExecutor: "robot", InTrials: "0", InMinEffect: "2", InBaseline: "file:", InComment: "sometimes",
			InCheckRun: "yes", InFailOn: "verdict = 1", InJudgeBaseURL: "models.github.ai", InMode: "shard",
			InSuites: "../outside", InWorkingDirectory: "/abs", InResultsDir: "a/../../b", InArtifactName: "a/b",
		}, nil, []string{
			`input "executor" = "robot": unknown executor (fix: use one of:`,
			`input "trials" = "0": not a whole number from 1 to 1000`,
			`input "min-effect" = "2"`,
			`input "baseline" = "file:": file: needs a path`,
			`input "comment" = "sometimes"`,
			`input "check-run" = "yes": not a boolean (fix: write true or false)`,
			`input "fail-on" = "verdict = 1": does not compile`,
			`input "judge-base-url" = "models.github.ai": not an http(s) URL`,
			`input "mode" = "shard": unknown mode (fix: use auto, run, collect, report or merge)`,
			`input "suites" = "../outside"`,
			`input "working-directory" = "/abs"`,
			`input "results-dir" = "a/../../b"`,
			`input "artifact-name" = "a/b"`,
		}},
		{"modes and shards", map[string]string{InMode: "collect", InShard: "2/4"}, func(t *testing.T, c *Config) {
			if c.Mode != ModeCollect || c.Shard == nil || *c.Shard != (runner.Shard{Index: 2, Count: 4}) {
				t.Errorf("mode %s shard %v", c.Mode, c.Shard)
			}
		}, nil},
		{"default mode", map[string]string{}, func(t *testing.T, c *Config) {
			if c.Mode != ModeAuto || c.Shard != nil || c.SkipTriggers || c.Uplift {
				t.Errorf("mode %s shard %v skip-triggers %v", c.Mode, c.Shard, c.SkipTriggers)
			}
		}, nil},
		{"bad shard", map[string]string{InShard: "5/4"}, nil, []string{`input "shard" = "5/4": "5/4": the shard index must be from 1 to 4`}},
		{"no shard in merge mode", map[string]string{InMode: "merge", InShard: "1/2"}, nil, []string{`input "shard" = "1/2": mode: merge publishes whole runs`}},
		{"fail-on must be boolean", map[string]string{InFailOn: "score"}, nil, []string{`input "fail-on" = "score": does not compile`}},
		{"fail-on unknown variable", map[string]string{InFailOn: "verdikt == \"regressed\""}, nil, []string{"unknown name verdikt"}},
		{"baseline method with a path", map[string]string{InBaseline: "rerun:now"}, nil, []string{"only file: takes a path"}},
		{"glob with a partial **", map[string]string{InSuites: "evals/a**"}, nil, []string{"`**` must be a whole path segment"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseInputs(func(name string) string { return tt.in[name] })
			if len(tt.errs) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				tt.check(t, c)
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			msgs := unjoin(err)
			if len(msgs) != len(tt.errs) {
				t.Errorf("%d errors, want %d:\n%v", len(msgs), len(tt.errs), err)
			}
			for _, want := range tt.errs {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("no error containing %q in:\n%v", want, err)
				}
			}
		})
	}
}

// TestMatchGlob covers what the suites input adds to internal/glob (whose own tests cover the
// dialect): the pattern is cleaned first, so a leading "./" and a trailing "/" match as written.
func TestMatchGlob(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"./evals/*", "evals/a", true},
		{"./evals/*", "other/a", false},
		{"evals/*/", "evals/a", true},
		{"evals/*/", "evals/a/eval.yaml", false},
		{"./evals/**/eval.yaml", "evals/x/eval.yaml", true},
	}
	for _, tt := range tests {
		pattern, err := suitePattern(tt.pattern)
		if err != nil {
			t.Fatalf("%s: %v", tt.pattern, err)
		}
		if got := glob.Match(pattern, tt.path); got != tt.want {
			t.Errorf("match(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func FuzzMatchGlob(f *testing.F) {
	f.Add("evals/**/eval.yaml", "evals/a/b/eval.yaml")
	f.Add("**/**/*", "a/b")
	f.Add("[", "x")
	f.Add("a/**b", "a/b")
	f.Fuzz(func(t *testing.T, pattern, p string) {
		clean, err := suitePattern(pattern)
		if err != nil {
			return
		}
		glob.Match(clean, p) // must not panic or hang
		if checkPattern(pattern) == nil {
			for _, s := range strings.Split(pattern, "/") {
				if s == ".." {
					t.Fatalf("checkPattern accepted %q", pattern)
				}
			}
		}
	})
}

func FuzzParseInputs(f *testing.F) {
	f.Add("auto", "!passed", "3", "0.02", "evals/**")
	f.Add("file:x", "verdict == \"regressed\"", "", "", "")
	f.Add("file:", "1 +", "-1", "NaN", "../x")
	f.Fuzz(func(t *testing.T, baseline, failOn, trials, minEffect, suites string) {
		in := map[string]string{InBaseline: baseline, InFailOn: failOn, InTrials: trials, InMinEffect: minEffect, InSuites: suites}
		c, err := ParseInputs(func(name string) string { return in[name] })
		if err != nil {
			return
		}
		if c.failOn == nil || c.MinEffect <= 0 || c.MinEffect >= 1 || c.Trials < 0 {
			t.Fatalf("accepted an invalid config: %+v", c)
		}
		for _, s := range c.Suites {
			if checkPattern(s) != nil {
				t.Fatalf("accepted suite pattern %q", s)
			}
		}
	})
}
