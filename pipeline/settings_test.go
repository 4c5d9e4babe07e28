package pipeline

import (
	"os"
	"testing"
)

// The judge settings reach the graders as options, not through the process environment (which
// every child process would inherit), and every load of one JudgeSettings shares one pool of
// endpoint clients (one concurrency limit per endpoint).
func TestJudgeSettingsOptions(t *testing.T) {
	getenv := func(string) string { return "" }
	j := &JudgeSettings{BaseURL: "https://api.openai.com/v1", APIKey: "sk-123", GitHubToken: "ghs_token", Model: "openai/gpt-4.1-mini",
		CacheDir: "/cache", Mode: "agent", Getenv: getenv}
	before, beforeSet := os.LookupEnv("SKILLGATE_JUDGE_API_KEY")
	o := j.options()
	if o.BaseURL != j.BaseURL || o.APIKey != "sk-123" || o.GitHubToken != "ghs_token" || o.Model != j.Model ||
		o.CacheDir != "/cache" || o.Mode != "agent" || o.Getenv == nil || o.Pool == nil || o.Pool.CacheDir != "/cache" {
		t.Errorf("judge options %+v", o)
	}
	if again := j.options(); again.Pool != o.Pool {
		t.Errorf("a second load has another client pool")
	}
	if after, afterSet := os.LookupEnv("SKILLGATE_JUDGE_API_KEY"); after != before || afterSet != beforeSet {
		t.Errorf("the judge key went into the process environment")
	}
	if o := (&JudgeSettings{Getenv: getenv}).options(); o.Pool != nil {
		t.Errorf("a judge without a verdict cache (validate, doctor) got a client pool")
	}
	if o := (*JudgeSettings)(nil).options(); o == nil || o.BaseURL != "" {
		t.Errorf("no judge settings: %+v", o)
	}
}
