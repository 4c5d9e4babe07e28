package main

import (
	"flag"
	"fmt"
	"path/filepath"

	"github.com/skillgate/skillgate/graders"
	"github.com/skillgate/skillgate/graders/judge"
	"github.com/skillgate/skillgate/runner"
	"github.com/skillgate/skillgate/spec"
)

// gradingFlags configure the graders of `skillgate run`: the LLM judge endpoint, its verdict
// cache, and human labels.
type gradingFlags struct {
	judgeBaseURL, judgeModel, cacheDir, labels, judgeMode string
}

func (g *gradingFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.judgeBaseURL, "judge-base-url", "", "OpenAI-compatible `URL` for LLM graders (default: SKILLGATE_JUDGE_BASE_URL, config.judge.base_url, else GitHub Models with GITHUB_TOKEN)")
	fs.StringVar(&g.judgeModel, "judge-model", "", "judge model `ID` for LLM graders that name none (default: SKILLGATE_JUDGE_MODEL, config.judge_model, else "+judge.DefaultGitHubModel+" on GitHub Models)")
	fs.StringVar(&g.judgeMode, "judge", "", "who judges the checks written as sentences (skill-creator's) and compares answers with the base: `endpoint` (default: the judge endpoint) or agent (the agent CLI under test, in the finished workspace; no second key); default SKILLGATE_JUDGE")
	fs.StringVar(&g.cacheDir, "cache-dir", "", "judge verdict cache `DIR` (default <out>/cache/judge)")
	fs.StringVar(&g.labels, "labels", "", "human labels `FILE` (YAML or JSON, task id → trial → {pass, score, note}) for human and human_calibration graders")
}

// loadOptions builds the suites' grading settings; diags hold problems of the labels file.
func (a *app) loadOptions(g gradingFlags, contextDir, outDir string) (runner.LoadOptions, spec.Diagnostics) {
	cache := g.cacheDir
	if cache == "" {
		cache = filepath.Join(outDir, "cache", "judge")
	}
	opts := runner.LoadOptions{
		ContextDir: contextDir,
		Judge: &graders.JudgeOptions{BaseURL: g.judgeBaseURL, Model: g.judgeModel, CacheDir: cache, Getenv: a.getenv,
			Pool: &judge.Pool{CacheDir: cache}, Mode: g.judgeMode},
	}
	if g.labels == "" {
		return opts, nil
	}
	labels, diags := graders.LoadLabels(g.labels)
	opts.Labels = labels
	if labels != nil && labels.Unlabeled > 0 {
		fmt.Fprintf(a.stderr, "%s: %d entries are not labelled yet (pass: null); those grades stay pending\n", g.labels, labels.Unlabeled)
	}
	return opts, diags
}

// checkLabels warns about labels for tasks none of the suites has.
func checkLabels(opts runner.LoadOptions, prepared []*runner.Prepared) spec.Diagnostics {
	if opts.Labels == nil {
		return nil
	}
	suites := make([]*spec.Suite, len(prepared))
	for i, p := range prepared {
		suites[i] = p.Suite
	}
	return opts.Labels.CheckTasks(suites)
}
