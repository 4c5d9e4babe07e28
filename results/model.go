// Package results is the results JSON of a suite run: the one contract between the runner, the
// reports and the GitHub Action. Key names follow waza's results files so tools written for them
// keep working; skillgate's additions (schema_version, provenance, sources, intervals) are extra keys.
package results

import (
	"bytes"
	"encoding/json"
	"time"
	"unicode/utf8"
)

// SchemaVersion is the version of the results JSON written by this build. Files without a
// schema_version are waza files; files with a newer version are refused on read.
const SchemaVersion = 1

// Status is the outcome of a run, a task or a grader.
type Status string

const (
	StatusPassed  Status = "passed"
	StatusFailed  Status = "failed"
	StatusError   Status = "error"
	StatusSkipped Status = "skipped"
	// StatusPending marks a grader waiting for a human label; it counts as neither pass nor fail.
	StatusPending Status = "pending"
)

// SuiteResult is one results file: one suite, every task, every trial.
type SuiteResult struct {
	SchemaVersion int                      `json:"schema_version"`
	EvalID        string                   `json:"eval_id"`
	Skill         string                   `json:"skill"`
	EvalName      string                   `json:"eval_name"`
	Timestamp     time.Time                `json:"timestamp"`
	Config        RunConfig                `json:"config"`
	Summary       Summary                  `json:"summary"`
	Metrics       map[string]*MetricResult `json:"metrics"`
	Tasks         []*TaskResult            `json:"tasks"`

	TriggerMetrics *TriggerMetrics  `json:"trigger_metrics,omitempty"`
	TriggerResults []*TriggerResult `json:"trigger_results,omitempty"`
	// TriggerQueries judges each query of a skill-creator trigger eval set over its runs
	// (RunConfig.TriggerRateThreshold; nil for waza's trigger tests).
	TriggerQueries []*TriggerQuery `json:"trigger_queries,omitempty"`
	// TriggerConfirmations are extra trials of trigger prompts that looked worse than on the
	// baseline (TaskResult.Confirmations); trigger metrics leave them out.
	TriggerConfirmations []*TriggerResult `json:"trigger_confirmations,omitempty"`

	// Calibration reports, per human_calibration grader, how the LLM grader it names agrees
	// with the human labels (docs/graders.md#human-review-and-calibration).
	Calibration []*Calibration `json:"calibration,omitempty"`

	// Gate is the suite's own pass/fail decision (exit code 0 or 1 of `skillgate run`).
	Gate *Gate `json:"gate,omitempty"`
	// Incomplete is set when the run was interrupted (signal, fatal error); only finished work is listed.
	Incomplete       bool   `json:"incomplete,omitempty"`
	IncompleteReason string `json:"incomplete_reason,omitempty"`

	Provenance *Provenance `json:"provenance,omitempty"`

	// Uplift mode (docs/results.md#uplift-mode): the same tasks run without the skill. IsBaseline
	// keeps waza's (confusing) name: it marks the primary, with-skill result that carries a
	// baseline_outcome.
	IsBaseline      bool         `json:"is_baseline,omitempty"`
	BaselineOutcome *SuiteResult `json:"baseline_outcome,omitempty"`

	// SharedDetails exists only in files: the grader details every run of a grader repeats (its
	// config echo), by grader name, written once instead of in each run (shared.go). Reading a
	// file puts them back into each run's details and leaves this nil.
	SharedDetails map[string]map[string]any `json:"grader_details,omitempty"`

	// ReadWarnings says what reading the file had to repair (figures out of range clamped,
	// numbers beyond float64 read as the largest); never written. Callers print them.
	ReadWarnings []string `json:"-"`

	// file, for a suite OpenFile did not hold, is where its tasks are read from (Tasks is nil),
	// and digests what the comparison reads of each.
	file    *taskFile
	digests []TaskDigest
}

// RunConfig records how the suite was run (waza's `config` block plus skillgate's settings).
type RunConfig struct {
	RunsPerTest int    `json:"runs_per_test"`
	ModelID     string `json:"model_id"`
	EngineType  string `json:"engine_type"`
	TimeoutSec  int    `json:"timeout_sec"`
	JudgeModel  string `json:"judge_model,omitempty"`

	Parallel    bool     `json:"parallel,omitempty"`
	Workers     int      `json:"workers,omitempty"`
	MaxAttempts int      `json:"max_attempts,omitempty"`
	FailFast    bool     `json:"fail_fast,omitempty"`
	Uplift      bool     `json:"uplift,omitempty"`
	TaskFilters []string `json:"task_filters,omitempty"`
	TagFilters  []string `json:"tag_filters,omitempty"`
	// SkipTriggers: no trigger prompt ran (--skip-triggers).
	SkipTriggers bool   `json:"skip_triggers,omitempty"`
	ReplayFrom   string `json:"replay_from,omitempty"`
	// TaskPassThreshold is the share of trials a task must pass to pass (config.
	// task_pass_threshold); 0 means 1, every trial.
	TaskPassThreshold float64 `json:"task_pass_threshold,omitempty"`
	// TriggerRateThreshold is a skill-creator trigger eval set's trigger_rate_threshold (0.5 by
	// default): each query is judged on its own (TriggerQueries). 0 for waza's trigger tests.
	TriggerRateThreshold float64 `json:"trigger_rate_threshold,omitempty"`
	// Shard says which part of a sharded run this is (`--shard i/n`), or, with Index 0, that the
	// results merge every shard of one.
	Shard *ShardInfo `json:"shard,omitempty"`
	// Pricing is the price table (config.pricing) cost estimates are computed with, kept so a
	// report recomputes the same figures (docs/results.md#spend).
	Pricing map[string]Price `json:"pricing,omitempty"`
}

// ShardInfo records one shard of a run split over several jobs, so merging can check the parts
// belong together.
type ShardInfo struct {
	// Index is 1-based; 0 marks results merged from all Count shards.
	Index int `json:"index"`
	Count int `json:"count"`
	// Method is how tasks were assigned: "hash" (a stable hash of suite and task id) or
	// "durations" (longest first by the durations of a baseline).
	Method string `json:"method"`
	// Plan identifies the assignment (the durations it used): shards with different plans may
	// have run a task twice or not at all, so they do not merge.
	Plan string `json:"plan,omitempty"`
}

// Summary aggregates the tasks of a suite (docs/results.md#summary).
type Summary struct {
	TotalTests  int     `json:"total_tests"`
	Succeeded   int     `json:"succeeded"`
	Failed      int     `json:"failed"`
	Errors      int     `json:"errors"`
	Skipped     int     `json:"skipped"`
	SuccessRate float64 `json:"success_rate"`
	// PassRate is the mean over the tasks that ran of each task's trial pass rate.
	PassRate       float64 `json:"pass_rate"`
	AggregateScore float64 `json:"aggregate_score"`
	WeightedScore  float64 `json:"weighted_score"`
	MinScore       float64 `json:"min_score"`
	MaxScore       float64 `json:"max_score"`
	StdDev         float64 `json:"std_dev"`
	DurationMS     int64   `json:"duration_ms"`
	Usage          *Usage  `json:"usage,omitempty"`
	// Spend is what the agent runs of the suite (tasks and trigger prompts) cost, and how many
	// were reused from the run cache instead of executed.
	Spend *Spend `json:"spend,omitempty"`

	TotalRuns  int `json:"total_runs"`
	PassedRuns int `json:"passed_runs"`
	ErrorRuns  int `json:"error_runs"`
	// Pending counts grader results awaiting a human label.
	Pending int `json:"pending,omitempty"`
	// Flaky counts tasks whose trials disagree (0 < pass rate < 1).
	Flaky  int     `json:"flaky"`
	Groups []Group `json:"groups,omitempty"`
}

// Group is a per-model summary row (config.group_by: model).
type Group struct {
	Name     string  `json:"name"`
	Passed   int     `json:"passed"`
	Total    int     `json:"total"`
	AvgScore float64 `json:"avg_score"`
}

// MetricResult is one gating metric (docs/format.md#metrics).
type MetricResult struct {
	Name      string         `json:"identifier"`
	Value     float64        `json:"value"`
	Threshold float64        `json:"threshold"`
	Passed    bool           `json:"passed"`
	Weight    float64        `json:"weight"`
	Details   map[string]any `json:"details,omitempty"`
	Source    *Location      `json:"source,omitempty"`
}

// Gate is a suite's pass/fail decision and every reason for a failure.
type Gate struct {
	Passed  bool     `json:"passed"`
	Reasons []string `json:"reasons,omitempty"`
}

// TaskResult is one task with all its trials.
type TaskResult struct {
	ID         string       `json:"test_id"`
	Name       string       `json:"display_name"`
	Status     Status       `json:"status"`
	Runs       []*RunResult `json:"runs"`
	Stats      *TaskStats   `json:"stats,omitempty"`
	Tags       []string     `json:"tags,omitempty"`
	Group      string       `json:"group,omitempty"`
	SkipReason string       `json:"skip_reason,omitempty"`
	// Prompt is the prompt the agent was given (inputs.context included), for review sheets
	// and LLM judges reading results later.
	Prompt string `json:"prompt,omitempty"`
	// ErrorMsg says why a task errored before any trial ran (a before_task hook failed).
	ErrorMsg string    `json:"error_msg,omitempty"`
	Source   *Location `json:"source,omitempty"`
	// DefinitionHash and GradersHash identify the task's definition (prompt, inputs, limits)
	// and its effective graders', so a comparison can tell a changed yardstick from a changed
	// skill (docs/results.md#tasks-and-runs). Empty in files that predate them.
	DefinitionHash string `json:"definition_hash,omitempty"`
	GradersHash    string `json:"graders_hash,omitempty"`

	// GradedByChecks marks a task graded on its checks as skill-creator grades an eval: when no
	// check of any run failed or errored but a check is pending (a judged check with no judge)
	// or the task has no check at all, its outcome is unknown and the task is `skipped` with a
	// skip_reason starting "not graded" — never passed (docs/results.md#tasks-and-runs).
	GradedByChecks bool `json:"graded_by_checks,omitempty"`

	SkillImpact *SkillImpact `json:"skill_impact,omitempty"`
	// Pairwise is a blind judge's comparison of this task's answer with the base branch's (a
	// prompt-only skill-creator eval, when a judge is configured and there is a baseline).
	Pairwise *Pairwise `json:"pairwise,omitempty"`
	// Spend is what the task's trials cost (Summarize fills it).
	Spend *Spend `json:"spend,omitempty"`
	// Confirmations are extra trials run after the comparison found the task looking worse than
	// on its baseline, to tell a real drop from trial noise (docs/statistics.md#confirming-before-blocking).
	// They are sampled because the task failed, so they stay out of Runs and of every figure the
	// task's trials give (status, stats, summary); the comparison reads them for its decision.
	Confirmations []*RunResult `json:"confirmations,omitempty"`
}

// Pairwise verdicts: the head's answer against the base branch's.
const (
	PairwiseBetter = "better"
	PairwiseWorse  = "worse"
	PairwiseTie    = "tie"
)

// Said is p's verdict, "" for no pairwise comparison (a nil p).
func (p *Pairwise) Said() string {
	if p == nil {
		return ""
	}
	return p.Verdict
}

// Pairwise is the verdict of the blind pairwise judge on a task's answer (docs/results.md#pairwise-verdicts).
type Pairwise struct {
	// Verdict is the head's answer against the base's: better, worse or tie. Over several trials
	// it is the majority of the trials' verdicts (a tie when better and worse are even).
	Verdict string `json:"verdict"`
	// Reason is the judge's reasoning (of the first trial that gave the verdict).
	Reason string `json:"reason"`
	// Judge is the judge model, or "agent".
	Judge string `json:"judge"`
	// HeadFirst: the head's answer was shown as answer A (the first trial's order).
	HeadFirst bool `json:"head_first"`
	// Better, Worse and Tie count the trials compared (trial i against the base's trial i).
	Better int `json:"better"`
	Worse  int `json:"worse"`
	Tie    int `json:"tie"`
}

// TaskStats are the per-task statistics over trials (docs/results.md#tasks-and-runs).
type TaskStats struct {
	Trials           int      `json:"trials"`
	PassedTrials     int      `json:"passed_trials"`
	ErrorTrials      int      `json:"error_trials"`
	PassRate         float64  `json:"pass_rate"`
	AvgScore         float64  `json:"avg_score"`
	AvgWeightedScore float64  `json:"avg_weighted_score"`
	MinScore         float64  `json:"min_score"`
	MaxScore         float64  `json:"max_score"`
	StdDevScore      float64  `json:"std_dev_score"`
	ScoreVariance    float64  `json:"score_variance"`
	AvgDurationMS    int64    `json:"avg_duration_ms"`
	Flaky            bool     `json:"flaky"`
	K                int      `json:"k"`
	PassAtK          float64  `json:"pass_at_k"`
	PassHatK         float64  `json:"pass_hat_k"`
	PassRateCI       Interval `json:"pass_rate_ci95"`
}

// Interval is a two-sided confidence interval.
type Interval struct {
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

// SkillImpact compares a task with and without the skill (uplift mode). Every delta is skill −
// baseline: positive when the skill helps.
type SkillImpact struct {
	PassRateWithSkills float64 `json:"pass_rate_with_skills"`
	PassRateBaseline   float64 `json:"pass_rate_baseline"`
	Delta              float64 `json:"delta"`
	// DeltaCI is the 95% interval of Delta (Newcombe's hybrid score method over the trials).
	DeltaCI         *Interval `json:"delta_ci95,omitempty"`
	PercentChange   float64   `json:"percent_change"`
	ScoreWithSkills float64   `json:"score_with_skills"`
	ScoreBaseline   float64   `json:"score_baseline"`
	ScoreDelta      float64   `json:"score_delta"`
}

// RunResult is one trial of a task: what the agent did and how each grader judged it.
type RunResult struct {
	RunNumber     int     `json:"run_number"`
	Attempts      int     `json:"attempts"`
	Status        Status  `json:"status"`
	Score         float64 `json:"score"`
	WeightedScore float64 `json:"weighted_score"`
	// PassThreshold, when set (a Vally spec's scoring.threshold), decides the trial: it passes
	// when WeightedScore reaches it, whatever single graders say (docs/vally.md).
	PassThreshold *float64    `json:"pass_threshold,omitempty"`
	Validations   Validations `json:"validations"`
	AgentRun
	ErrorMsg     string `json:"error_msg,omitempty"`
	WorkspaceDir string `json:"workspace_dir,omitempty"`
	// RunKey identifies everything that determined what the agent was asked and with what
	// (docs/format.md#the-run-cache); empty when the run cache was off.
	RunKey string `json:"run_key,omitempty"`
	// Reused is set when the recorded run was taken from the run cache instead of executed.
	Reused *Reuse `json:"reused,omitempty"`
}

// Trial is the run's trial number: RunNumber, or, in files that leave it out (0), the run's
// position i among its task's runs plus one.
func (r *RunResult) Trial(i int) int {
	if r.RunNumber > 0 {
		return r.RunNumber
	}
	return i + 1
}

// AgentRun is the normalized run an executor produces (docs/agents.md#the-recorded-run). It is
// stored inline in every RunResult and is what the replay executor reads back.
type AgentRun struct {
	FinalOutput   string        `json:"final_output"`
	Transcript    []Event       `json:"transcript,omitempty"`
	SessionDigest SessionDigest `json:"session_digest"`
	DurationMS    int64         `json:"duration_ms"`
	// AgentError is why the agent failed to produce a run (crash, timeout, bad output); a replay
	// of this run fails the same way. Grader failures are not recorded here.
	AgentError string `json:"agent_error,omitempty"`
	// Stderr holds the agent process's standard error (bounded), when an executor captures it.
	Stderr string `json:"stderr,omitempty"`
	// UnknownEvents counts agent events the parser did not recognise (kept raw in Transcript).
	UnknownEvents int `json:"unknown_events,omitempty"`
	// ChangedFiles lists workspace files the run created, modified or deleted.
	ChangedFiles []FileChange `json:"changed_files,omitempty"`
	// StoppedEarly says why the agent was stopped before it finished because the decision was
	// already known (skill_call, tool_call_count, output_matches); empty for a full run.
	StoppedEarly string `json:"stopped_early,omitempty"`
	// Turns, for a multi-turn conversation (a Vally stimulus's `turns`: the session resumed for
	// each further user message), record each turn; nil for a single prompt.
	Turns []TurnRecord `json:"turns,omitempty"`
}

// TurnRecord is one turn of a conversation within AgentRun.
type TurnRecord struct {
	Prompt string `json:"prompt"`
	Output string `json:"output"`
	// TranscriptEnd is the index in the run's Transcript just past this turn's events.
	TranscriptEnd int    `json:"transcript_end"`
	Usage         *Usage `json:"usage,omitempty"`
	DurationMS    int64  `json:"duration_ms"`
}

// Turn is the run as one turn of its conversation saw it (0-based): that turn's events, output,
// usage and duration. ok is false when the run has no such turn.
func (r *AgentRun) Turn(i int) (*AgentRun, bool) {
	if i < 0 || i >= len(r.Turns) {
		return nil, false
	}
	start := 0
	if i > 0 {
		start = r.Turns[i-1].TranscriptEnd
	}
	t := r.Turns[i]
	end := min(max(t.TranscriptEnd, start), len(r.Transcript))
	start = min(start, end)
	events := r.Transcript[start:end:end]
	out := &AgentRun{FinalOutput: t.Output, Transcript: events, DurationMS: t.DurationMS, ChangedFiles: r.ChangedFiles}
	out.SessionDigest = Digest(events, t.Usage, r.SessionDigest.SessionID)
	if i == len(r.Turns)-1 {
		out.AgentError, out.StoppedEarly = r.AgentError, r.StoppedEarly
	}
	return out, true
}

// FileChange is one workspace file that differs from the task's inputs after the run.
type FileChange struct {
	Path   string `json:"path"`
	Change string `json:"change"` // added | modified | deleted
	Size   int64  `json:"size"`
	// Content is the start of the file's text after the run (see FileText), recorded so a replay
	// judges the same files the live run did; empty for deleted, binary or unrecorded files.
	Content string `json:"content,omitempty"`
	Binary  bool   `json:"binary,omitempty"`
}

// ChangedFileContentLimit is how much of a changed file a run records and a judge reads.
const ChangedFileContentLimit = 8000

// FileText is the text recorded for a changed file: its first ChangedFileContentLimit bytes,
// cut at a character boundary. ok is false for binary content (a NUL byte or invalid UTF-8).
func FileText(data []byte) (text string, ok bool) {
	if len(data) > ChangedFileContentLimit {
		data = data[:ChangedFileContentLimit]
		// Drop a character cut in half by the limit.
		for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax; i-- {
			if utf8.RuneStart(data[i]) {
				if !utf8.FullRune(data[i:]) {
					data = data[:i]
				}
				break
			}
		}
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return "", false
	}
	return string(data), true
}

// Event types of a normalized transcript.
const (
	EventMessage         = "message"
	EventToolCall        = "tool_call"
	EventSkillInvocation = "skill_invocation"
	EventError           = "error"
	// EventRaw wraps an agent event the parser does not understand; Raw holds it verbatim.
	EventRaw = "raw"
)

// Event is one entry of a normalized transcript. Fields are used according to Type.
type Event struct {
	Type       string          `json:"type"`
	Role       string          `json:"role,omitempty"`
	Content    string          `json:"content,omitempty"`
	ID         string          `json:"id,omitempty"`
	Name       string          `json:"name,omitempty"`
	Arguments  map[string]any  `json:"arguments,omitempty"`
	Result     any             `json:"result,omitempty"`
	Success    *bool           `json:"success,omitempty"`
	DurationMS int64           `json:"duration_ms,omitempty"`
	Path       string          `json:"path,omitempty"`
	Message    string          `json:"message,omitempty"`
	Raw        json.RawMessage `json:"raw,omitempty"`

	// waza's Copilot-native fields, accepted on read and normalized away (see Normalize).
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolName   string `json:"tool_name,omitempty"`
	ToolResult any    `json:"tool_result,omitempty"`
}

// SessionDigest summarises a run; every field can be derived from the transcript.
type SessionDigest struct {
	ToolCallCount    int               `json:"tool_call_count"`
	ToolsUsed        []string          `json:"tools_used"`
	ToolCalls        []ToolCall        `json:"tool_calls,omitempty"`
	SkillInvocations []SkillInvocation `json:"skill_invocations,omitempty"`
	Usage            *Usage            `json:"usage,omitempty"`
	SessionID        string            `json:"session_id,omitempty"`
	Errors           []string          `json:"errors"`
}

// ToolCall is one tool call with its outcome.
type ToolCall struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Kind is the tool's canonical kind (shell, read, write, edit, search, skill, web), empty
	// for a tool outside that vocabulary (docs/agents.md).
	Kind string `json:"kind,omitempty"`
	// Command is a shell call's command as the agent meant it, shell wrappers such as
	// `bash -lc '…'` removed; Arguments keep it as recorded.
	Command   string         `json:"command,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
	Result    any            `json:"result,omitempty"`
	// Success is true only for a call the agent reported as succeeded (Outcome succeeded).
	Success bool `json:"success"`
	// Outcome is succeeded, failed or unknown (never recorded; see ToolUnknown). Empty in runs
	// recorded before outcomes existed: NormalizeToolCall reads Success then.
	Outcome    ToolOutcome `json:"outcome,omitempty"`
	DurationMS int64       `json:"duration_ms,omitempty"`
}

// SkillInvocation is one use of a skill by the agent.
type SkillInvocation struct {
	Name string `json:"name"`
	Path string `json:"path,omitempty"`
}

// Usage is token usage and cost. A nil *Usage means the agent reported none.
type Usage struct {
	Turns            int                    `json:"turns,omitempty"`
	InputTokens      int64                  `json:"input_tokens"`
	OutputTokens     int64                  `json:"output_tokens"`
	CacheReadTokens  int64                  `json:"cache_read_tokens"`
	CacheWriteTokens int64                  `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int64                  `json:"reasoning_tokens,omitempty"`
	CostUSD          float64                `json:"cost_usd,omitempty"`
	PremiumRequests  float64                `json:"premium_requests,omitempty"`
	ModelMetrics     map[string]*ModelUsage `json:"model_metrics,omitempty"`
}

// ModelUsage is the usage attributed to one model.
type ModelUsage struct {
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	RequestCount     int     `json:"request_count,omitempty"`
	RequestCost      float64 `json:"request_cost,omitempty"`
	CostUSD          float64 `json:"cost_usd,omitempty"`
}

// GraderResult is what one grader decided about one run.
type GraderResult struct {
	Name       string         `json:"identifier"`
	Type       string         `json:"type"`
	Score      float64        `json:"score"`
	Weight     float64        `json:"weight"`
	Passed     bool           `json:"passed"`
	Feedback   string         `json:"feedback"`
	Details    map[string]any `json:"details,omitempty"`
	DurationMS int64          `json:"duration_ms"`
	// Status is "pending" for graders awaiting a human label and "error" for graders that could
	// not run; empty otherwise (Passed decides).
	Status Status    `json:"status,omitempty"`
	Source *Location `json:"source,omitempty"`
}

// DeferredKey marks a pending grader result that a fork-safe collecting run left for the report
// workflow: Details[DeferredKey] == "report".
const DeferredKey = "deferred"

// Deferred reports whether the result is pending because its grading was deferred to the report
// workflow, rather than waiting for a human label.
func (g *GraderResult) Deferred() bool {
	return g.Status == StatusPending && g.Details[DeferredKey] == "report"
}

// AwaitsJudge reports whether the result is pending because no judge graded it (a judged check
// under the mock executor or without a judge endpoint), rather than awaiting a human label.
func (g *GraderResult) AwaitsJudge() bool {
	return g.Status == StatusPending && !g.Deferred() && IsJudge(g.Type)
}

// Location points at a line of a suite file, relative to the repository root when known.
type Location struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col,omitempty"`
}

// TriggerMetrics are the weighted confusion counts and ratios (docs/format.md#trigger-tests).
type TriggerMetrics struct {
	TruePositives  int       `json:"true_positives"`
	FalsePositives int       `json:"false_positives"`
	TrueNegatives  int       `json:"true_negatives"`
	FalseNegatives int       `json:"false_negatives"`
	Errors         int       `json:"errors,omitempty"`
	Precision      float64   `json:"precision"`
	Recall         float64   `json:"recall"`
	F1             float64   `json:"f1"`
	Accuracy       float64   `json:"accuracy"`
	AccuracyCI     *Interval `json:"accuracy_ci95,omitempty"`
	// Weighted holds the unrounded weighted counts the ratios are computed from.
	Weighted *WeightedCounts `json:"weighted,omitempty"`
}

// WeightedCounts are confusion counts weighted by confidence (high 1.0, medium 0.5).
type WeightedCounts struct {
	TP float64 `json:"tp"`
	FP float64 `json:"fp"`
	TN float64 `json:"tn"`
	FN float64 `json:"fn"`
}

// TriggerResult is one trigger prompt in one trial.
type TriggerResult struct {
	ID            string     `json:"id"`
	Prompt        string     `json:"prompt"`
	Confidence    string     `json:"confidence,omitempty"`
	ShouldTrigger bool       `json:"should_trigger"`
	DidTrigger    bool       `json:"did_trigger"`
	Trial         int        `json:"trial,omitempty"`
	ErrorMsg      string     `json:"error_msg,omitempty"`
	FinalOutput   string     `json:"final_output,omitempty"`
	Transcript    []Event    `json:"transcript,omitempty"`
	ToolCalls     []ToolCall `json:"tool_calls,omitempty"`
	SessionID     string     `json:"session_id,omitempty"`
	DurationMS    int64      `json:"duration_ms,omitempty"`
	Source        *Location  `json:"source,omitempty"`
	Usage         *Usage     `json:"usage,omitempty"`
	StoppedEarly  string     `json:"stopped_early,omitempty"`
	RunKey        string     `json:"run_key,omitempty"`
	Reused        *Reuse     `json:"reused,omitempty"`
}

// Provenance says what produced a results file, so two files can be compared knowingly.
type Provenance struct {
	SkillgateVersion string            `json:"skillgate_version"`
	GitCommit        string            `json:"git_commit,omitempty"`
	GitDirty         bool              `json:"git_dirty,omitempty"`
	SuiteFile        string            `json:"suite_file,omitempty"`
	SuiteHash        string            `json:"suite_hash,omitempty"`
	SkillHashes      map[string]string `json:"skill_hashes,omitempty"`
	Executor         string            `json:"executor,omitempty"`
	AgentVersion     string            `json:"agent_version,omitempty"`
	Model            string            `json:"model,omitempty"`
	JudgeModel       string            `json:"judge_model,omitempty"`
	JudgePromptHash  string            `json:"judge_prompt_hash,omitempty"`
	Baseline         *BaselineSource   `json:"baseline,omitempty"`
}

// BaselineSource says where a comparison's baseline came from.
type BaselineSource struct {
	Method    string    `json:"method"` // artifact | file | rerun | none
	Commit    string    `json:"commit,omitempty"`
	CreatedAt time.Time `json:"created_at,omitzero"`
	Detail    string    `json:"detail,omitempty"`
}

// Baseline methods (BaselineSource.Method).
const (
	BaselineArtifact = "artifact" // the base branch's results artifact
	BaselineFile     = "file"     // a results file given or committed
	BaselineRerun    = "rerun"    // the suite run again at the base commit
	BaselineNone     = "none"     // nothing to compare with
)
