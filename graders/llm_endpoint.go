package graders

import (
	"cmp"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/skillgate/skillgate/graders/judge"
	"github.com/skillgate/skillgate/internal/redact"
	"github.com/skillgate/skillgate/spec"
)

// judgeSetup is where a suite's LLM graders send their requests, resolved once per Env.
type judgeSetup struct {
	client *judge.Client // nil when no endpoint is configured
	github bool          // the endpoint is GitHub Models
	// model is the suite-wide judge model (flags, environment, config), before a grader's own.
	model string
	// fromConfig: the endpoint is the suite's config.judge.base_url, not the machine's choice.
	fromConfig bool
}

// judgeConfig is eval.yaml's config.judge block.
type judgeConfig struct {
	BaseURL        string
	APIKeyEnv      string
	Model          string
	MaxConcurrency int
	TimeoutSeconds float64
}

const noEndpointFix = "set GITHUB_TOKEN to use GitHub Models (in a workflow: `permissions: models: read`), " +
	"or SKILLGATE_JUDGE_BASE_URL and SKILLGATE_JUDGE_API_KEY (or --judge-base-url, or config.judge.base_url with config.judge.api_key_env) for another OpenAI-compatible endpoint"

// judge resolves the endpoint on first use; its diagnostics (about config.judge) are returned
// once, to the first LLM grader compiled.
func (env *Env) judge() (*judgeSetup, spec.Diagnostics) {
	first := false
	env.judgeOnce.Do(func() {
		first = true
		env.judgeSetup, env.judgeDiags = resolveJudge(env)
	})
	if first {
		return env.judgeSetup, env.judgeDiags
	}
	return env.judgeSetup, nil
}

func resolveJudge(env *Env) (*judgeSetup, spec.Diagnostics) {
	opts := env.Judge
	if opts == nil {
		opts = &JudgeOptions{}
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	githubToken := cmp.Or(opts.GitHubToken, getenv("GITHUB_TOKEN"))
	cfg, cfgNode, diags := decodeJudgeConfig(env.Suite)
	cfgPos := func(key string) spec.Pos {
		if cfgNode == nil {
			return suitePos(env.Suite)
		}
		if p := cfgNode.At(key); p.Line > 0 {
			return p
		}
		return cfgNode.Pos()
	}

	setup := &judgeSetup{}
	base, baseFrom := opts.BaseURL, "--judge-base-url"
	if base == "" {
		base, baseFrom = getenv("SKILLGATE_JUDGE_BASE_URL"), "SKILLGATE_JUDGE_BASE_URL"
	}
	if base == "" {
		base, baseFrom = cfg.BaseURL, "config.judge.base_url"
	}
	var key string
	switch {
	case base != "":
		if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			pos, k := suitePos(env.Suite), baseFrom
			if baseFrom == "config.judge.base_url" {
				pos = cfgPos("base_url")
			}
			d := spec.Errorf(pos, k, "give the endpoint's base URL, e.g. https://models.github.ai/inference or https://api.openai.com/v1",
				"judge base URL %q (from %s) is not an http(s) URL", base, baseFrom)
			if baseFrom != "config.judge.base_url" {
				d = d.OfMachine()
			}
			return setup, append(diags, d)
		}
		setup.github = isGitHubModels(base)
		fromConfig := baseFrom == "config.judge.base_url"
		setup.fromConfig = fromConfig
		if fromConfig && cfg.APIKeyEnv != "" {
			key = getenv(cfg.APIKeyEnv)
		}
		if key == "" {
			key = cmp.Or(opts.APIKey, getenv("SKILLGATE_JUDGE_API_KEY"))
		}
		if key == "" && !fromConfig && cfg.APIKeyEnv != "" {
			key = getenv(cfg.APIKeyEnv)
		}
		if key == "" && setup.github {
			key = githubToken
		}
		if key == "" && cfg.APIKeyEnv != "" {
			diags = append(diags, spec.Errorf(cfgPos("api_key_env"), "config.judge.api_key_env", "export "+cfg.APIKeyEnv+" with the endpoint's API key",
				"the environment variable %s named by config.judge.api_key_env is not set", cfg.APIKeyEnv).OfMachine())
			return setup, diags
		}
		if key == "" && setup.github {
			diags = append(diags, spec.Errorf(suitePos(env.Suite), baseFrom, "set GITHUB_TOKEN (in a workflow: `permissions: models: read`)",
				"the judge endpoint is GitHub Models and no token is set").OfMachine())
			return setup, diags
		}
	default:
		if githubToken != "" {
			base, key, setup.github = judge.GitHubModelsURL, githubToken, true
		}
	}
	setup.model = cmp.Or(opts.Model, getenv("SKILLGATE_JUDGE_MODEL"), suiteJudgeModel(env.Suite), cfg.Model)
	if base == "" {
		return setup, diags
	}
	pool := opts.Pool
	if pool == nil {
		pool = &judge.Pool{CacheDir: opts.CacheDir, HTTPClient: opts.HTTPClient}
		opts.Pool = pool
	}
	budget := time.Duration(cfg.TimeoutSeconds * float64(time.Second))
	redact.Add(key) // however it was chosen (api_key_env names any variable), no output carries it
	setup.client = pool.Client(base, key, cfg.MaxConcurrency, budget)
	return setup, diags
}

// judgeModel is the model a grader uses: its own, else the suite's, else the endpoint's default.
// On GitHub Models, waza-style ids without a publisher (gpt-4o-mini) get the openai/ prefix.
func (s *judgeSetup) judgeModel(own string) string {
	m := cmp.Or(own, s.model)
	if s.github {
		if m == "" {
			return judge.DefaultGitHubModel
		}
		if !strings.Contains(m, "/") && (strings.HasPrefix(m, "gpt-") || strings.HasPrefix(m, "o1") || strings.HasPrefix(m, "o3") || strings.HasPrefix(m, "o4")) {
			return "openai/" + m
		}
	}
	return m
}

func isGitHubModels(base string) bool {
	u, err := url.Parse(base)
	return err == nil && strings.EqualFold(u.Hostname(), "models.github.ai")
}

func suiteJudgeModel(s *spec.Suite) string {
	if s == nil {
		return ""
	}
	return s.Config.JudgeModel
}

func suitePos(s *spec.Suite) spec.Pos {
	if s == nil {
		return spec.Pos{}
	}
	if p, ok := s.Config.Pos["judge"]; ok {
		return p
	}
	return s.Pos
}

// decodeJudgeConfig reads config.judge, reporting each bad value at its position.
func decodeJudgeConfig(s *spec.Suite) (judgeConfig, *spec.Value, spec.Diagnostics) {
	var cfg judgeConfig
	if s == nil || s.Config.Extra == nil {
		return cfg, nil, nil
	}
	node := s.Config.Extra["judge"]
	if node == nil {
		return cfg, nil, nil
	}
	if !node.IsMapping() {
		return cfg, node, spec.Diagnostics{spec.Errorf(node.Pos(), "config.judge", "write config.judge as a mapping: {base_url, api_key_env, model, max_concurrency, timeout_seconds}",
			"config.judge must be a mapping, not %s", node.Describe())}
	}
	var diags spec.Diagnostics
	bad := func(v *spec.Value, key, want string) {
		diags = append(diags, spec.Errorf(v.Pos(), "config.judge."+key,
			"write config.judge."+key+" as "+want, "config.judge.%s must be %s, not %s", key, want, v.Describe()))
	}
	str := func(key string, into *string) {
		if v := node.Key(key); v != nil {
			if v.Tag() != "!!str" {
				bad(v, key, "a string")
				return
			}
			*into = strings.TrimSpace(v.Text())
		}
	}
	str("base_url", &cfg.BaseURL)
	str("api_key_env", &cfg.APIKeyEnv)
	str("model", &cfg.Model)
	if v := node.Key("max_concurrency"); v != nil {
		if err := v.Decode(&cfg.MaxConcurrency); err != nil || v.Tag() != "!!int" || cfg.MaxConcurrency < 1 {
			bad(v, "max_concurrency", "an integer ≥ 1")
		}
	}
	if v := node.Key("timeout_seconds"); v != nil {
		if err := v.Decode(&cfg.TimeoutSeconds); err != nil || (v.Tag() != "!!int" && v.Tag() != "!!float") || cfg.TimeoutSeconds <= 0 {
			bad(v, "timeout_seconds", "a number of seconds > 0")
		}
	}
	return cfg, node, diags
}
