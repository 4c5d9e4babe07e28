// Package spec loads and validates eval suites (docs/format.md): eval.yaml, task files,
// CSV datasets and trigger_tests.yaml. Every loaded node keeps its file:line:col so later stages
// (annotations, SARIF) can point at the exact line.
package spec

import "go.yaml.in/yaml/v3"

// Suite is one loaded eval.yaml with everything it references.
type Suite struct {
	File string // absolute path of eval.yaml
	Dir  string // its directory; relative eval.yaml keys resolve against it

	Name        string
	Description string
	Version     string
	Skill       string
	Config      Config
	Inputs      map[string]string
	Hooks       Hooks
	Baseline    bool // uplift mode (docs/results.md, uplift)

	// Graders are the top-level (global) graders in declaration order.
	Graders []*Grader
	Metrics []*Metric
	// Tasks are the enabled tasks in load order, each with its effective grader list.
	Tasks []*Task
	// TriggerTests is trigger_tests.yaml next to eval.yaml, or nil.
	TriggerTests *TriggerTests

	// ContextDir is the fixtures folder: --context-dir, else <Dir>/fixtures.
	ContextDir string
	// Files lists every suite file read (eval.yaml, task files, CSV, trigger tests), absolute,
	// for the suite content hash.
	Files []string

	Pos Pos // position of the document root in eval.yaml

	// Format is "vally" for a Vally spec (top-level `stimuli:`), "skill-creator" for
	// skill-creator's evals.json or trigger eval sets (FormatSkillCreator), "" for a waza suite.
	Format string
	// Scoring is a Vally spec's `scoring`; nil for waza suites.
	Scoring *Scoring
}

// Config is eval.yaml's `config` block with defaults applied.
type Config struct {
	TrialsPerTask  int
	TimeoutSeconds int
	Parallel       bool
	MaxWorkers     int
	FailFast       bool
	MaxAttempts    int
	// TaskPassThreshold is the share of trials a task must pass (0 < t ≤ 1; default 1, every trial).
	TaskPassThreshold float64
	Executor          string // canonical name ("copilot-sdk" is kept as written; agent resolves aliases)
	Model             string
	JudgeModel        string
	SkillDirectories  []string // absolute
	// MissingSkillDirectories are the skill_directories entries (as written) that exist neither
	// below eval.yaml's folder nor below the repository root: ignored under mock and replay, an
	// error in every run of a real agent.
	MissingSkillDirectories []string
	// MissingSkill names the skill the suite tests when no folder of it was found (a
	// skill-creator evals folder with no SKILL.md to relate it to): the runs of a real agent
	// would have no skill to install.
	MissingSkill   string
	RequiredSkills []string
	GroupBy        string

	// Cache is config.cache: false turns the run cache off for the suite; nil leaves it to
	// the command line.
	Cache *bool
	// CacheInputs is config.cache_inputs: globs, relative to eval.yaml's folder, of the files the
	// agent reads besides its inputs and skills; their contents are part of every run key.
	CacheInputs []string
	// TriggerEarlyStop stops trigger prompts once the decision is known; nil when turned off.
	TriggerEarlyStop *EarlyStop
	// Pricing is the price table by model id (config.pricing).
	Pricing map[string]Price
	// MaxTokens and MaxCostUSD bound one run (0: no bound).
	MaxTokens  int64
	MaxCostUSD float64

	// Extra holds config keys owned by later stages (executor settings, judge endpoint…),
	// as positioned values, keyed by name. Their schema lives in schemas/eval.schema.json.
	Extra map[string]*Value

	Pos map[string]Pos // position of each key that was written, keyed by key name
	// ExecutorKey is the key path that set Executor, for diagnostics: "config.executor" in a waza
	// suite, "defaults.executor" (or the older "config.executor") in a Vally spec; "" when unset.
	ExecutorKey string
}

// Hooks are shell commands run around the suite and each task.
type Hooks struct {
	BeforeRun  []*Hook
	AfterRun   []*Hook
	BeforeTask []*Hook
	AfterTask  []*Hook
}

// Hook is one hook command.
type Hook struct {
	Command          string
	WorkingDirectory string // absolute; default the suite folder, or the .waza.yaml folder above it (WazaProjectRoot)
	ExitCodes        []int  // accepted exit codes; default {0}
	ErrorOnFail      bool
	Pos              Pos
}

// Metric is one entry of eval.yaml's `metrics` list.
type Metric struct {
	Name        string
	Threshold   float64
	Weight      float64
	Enabled     bool
	Description string
	Pos         Pos
}

// Task is one task with its effective graders.
type Task struct {
	ID          string
	Name        string
	Description string
	Tags        []string
	// TimeoutSeconds is the effective per-run limit (the task's own, else the suite's).
	TimeoutSeconds int
	// Trials is the task's own number of trials (a Vally stimulus's runs); 0: the suite's.
	Trials int
	// ContextDir is where inputs.files paths are read from (absolute).
	ContextDir  string
	Prompt      string // rendered template
	Files       []*InputFile
	Context     string // inputs.context rendered as text; not sent to the agent, as in waza
	Environment map[string]string
	// Graders is the effective, ordered grader list for this task (docs/format.md#graders): global
	// graders (or those named by expected.graders), then task graders, then implicit graders
	// from expected.*; a task grader named like a global one replaces it in place.
	Graders []*Grader
	// Vars are the template variables of a CSV row.
	Vars map[string]string
	// EarlyStop stops the agent once the outcome is known (nil: never).
	EarlyStop *EarlyStop

	// Turns are the user messages of a multi-turn conversation (a Vally stimulus's `turns`),
	// Prompt being the first; nil for a single prompt.
	Turns []string
	// Setup are shell commands run in the workspace, in order, before the agent starts (a
	// Vally environment's `commands`); the run errors at the first that fails.
	Setup []*SetupCommand
	// OwnSkills marks a task whose skills differ from the suite's: SkillDirectories and
	// MissingSkillDirectories then replace the suite's for its runs (a Vally stimulus's own
	// environment.skills, or an experiment variant's).
	OwnSkills               bool
	SkillDirectories        []string
	MissingSkillDirectories []string
	// GradingFiles are copied into the workspace, and GradingSetup run there, after the agent
	// and before the graders (a Vally grading_environment); neither counts as the agent's change.
	GradingFiles []*InputFile
	GradingSetup []*SetupCommand

	File string // absolute path of the file that declares the task
	Dir  string // its directory; relative task keys resolve against it
	Pos  Pos    // position of the task (mapping start, or CSV row)

	// Unvalidated marks a task Options.Owns left to another job: decoded (ids, hashes and files
	// are as a full load gives them) but not schema-validated and its problems not reported. It
	// must not run.
	Unvalidated bool
}

// InputFile is one entry of inputs.files.
type InputFile struct {
	Path       string // workspace-relative, cleaned
	Content    string
	HasContent bool   // written inline from Content; otherwise copied from Source
	Source     string // absolute path under the context dir (when !HasContent)
	// Missing says why Source cannot be copied ("" when it can): each run of the task errors
	// with it.
	Missing string
	Pos     Pos
}

// SetupCommand is one shell command that prepares a workspace.
type SetupCommand struct {
	Command string
	// TimeoutSeconds bounds the command (0: the task's per-run limit).
	TimeoutSeconds int
	Pos            Pos
}

// Grader is one grader declaration, global, task-level or implicit.
type Grader struct {
	Name   string
	Type   string  // as written, lower case ("regex", "llm"… are legacy names resolved by the registry)
	Weight float64 // effective: ≤ 0 or missing means 1.0
	// Config is the grader's settings, decoded when the suite loads into its type's config
	// struct (a pointer, see GraderType.Config); nil for a type without settings or one this
	// build does not know. The loader folds the shortcut keys in first (task-level
	// `assertions:`, top-level `model`/`rubric`/`threshold`/`reference` of LLM judges).
	Config any
	// ConfigErrors are the values of the wrong type decoding Config met, each at its
	// file:line:col; the grader reports them when it compiles.
	ConfigErrors Diagnostics
	// config is the config mapping as written, for positions (ConfigAt); never nil once loaded.
	config *yaml.Node
	Pos    Pos    // position of the grader's list item
	File   string // absolute path of the declaring file
	Dir    string // its directory: relative paths in the config resolve against it (docs/format.md#paths)
	Global bool
	// Implicit names the expected.* key this grader was generated from, e.g. "expected.output_contains".
	Implicit string
	// Turn, when set, grades one turn of a multi-turn conversation (0-based, a Vally grader's
	// `turn`) instead of the whole conversation.
	Turn *int
}

// TriggerTests is a loaded trigger_tests.yaml (docs/format.md#trigger-tests).
type TriggerTests struct {
	File          string
	Skill         string
	ShouldTrigger []*TriggerPrompt
	ShouldNot     []*TriggerPrompt
	Pos           Pos
	// Runs is how many times each prompt runs (skill-creator's runs_per_query); 0: the suite's
	// trials_per_task.
	Runs int
	// RateThreshold, when above 0, judges each query on its own as skill-creator does: it
	// triggered in at least this share of its runs (should-trigger) or in less (should-not).
	RateThreshold float64
	// Files are the trigger eval sets read (skill-creator), File the first.
	Files []string
}

// TriggerPrompt is one should / should-not prompt.
type TriggerPrompt struct {
	ID            string // given, else should-N / should-not-N
	Prompt        string
	Reason        string
	Confidence    string // high | medium
	ShouldTrigger bool
	Pos           Pos
}

// Weight is the confidence weight of a trigger prompt in the trigger metrics: 1 for high, 0.5 for medium (docs/format.md#trigger-tests).
func (p *TriggerPrompt) Weight() float64 {
	if p.Confidence == "medium" {
		return 0.5
	}
	return 1.0
}

// fileNode is a YAML node together with the file it came from, so any value can name its position.
// It stays inside spec: later stages get Pos and Value.
type fileNode struct {
	*yaml.Node
	File string
}

// Pos is a position in a suite file. Line and Col are 1-based; 0 means unknown.
type Pos struct {
	File string
	Line int
	Col  int
}
