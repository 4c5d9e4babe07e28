package main

import (
	"flag"
	"path/filepath"

	"github.com/skillgate/skillgate/graders/judge"
	"github.com/skillgate/skillgate/pipeline"
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

// judge are the judge settings of the flags; the verdict cache defaults to <out>/cache/judge.
func (g gradingFlags) judge(getenv func(string) string, outDir string) *pipeline.JudgeSettings {
	cache := g.cacheDir
	if cache == "" {
		cache = filepath.Join(outDir, "cache", "judge")
	}
	return &pipeline.JudgeSettings{BaseURL: g.judgeBaseURL, Model: g.judgeModel, CacheDir: cache, Getenv: getenv, Mode: g.judgeMode}
}
