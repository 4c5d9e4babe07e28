package build

// The schemas of what the fork-safe report mode downloads from a pull request's run: the
// results files and pr.json. Both come from code the pull request controls, so the report mode
// validates them before it reads anything else. The results schema checks the structure the
// graders and reports rely on and lets unknown keys through (newer writers, waza's keys); the
// pr.json schema is closed and bounds every value.

var statuses = []string{"passed", "failed", "error", "skipped", "pending"}

func status(desc string) *Obj { return enum(desc, statuses...) }

// open is an object schema that accepts unknown keys.
func open(desc string, props *Obj, required ...string) *Obj {
	o := O("type", "object", "description", desc)
	if len(required) > 0 {
		o.Set("required", required)
	}
	o.Set("properties", props)
	return o
}

func nullable(o *Obj) *Obj {
	return O("anyOf", []any{o, O("type", "null")})
}

func resultsDefs() *Obj {
	location := open("A place in a suite file, relative to the repository root.", O(
		"file", str("File path."),
		"line", integer(0, "1-based line; 0 when unknown."),
		"col", integer(0, "1-based column; 0 when unknown."),
	), "file")
	graderResult := open("What one grader decided about one run.", O(
		"identifier", str("Grader name."),
		"type", str("Grader type."),
		"score", number("Score from 0 to 1."),
		"weight", number("Weight."),
		"passed", boolean("Whether the check passed."),
		"feedback", str("Explanation."),
		"details", looseObject("Grader-specific details."),
		"duration_ms", integer(0, "Grading time."),
		"status", O("type", "string", "enum", append([]string{""}, statuses...), "description", "pending, error, or empty."),
		"source", ref("location"),
	))
	event := open("One transcript event.", O(
		"type", str("message, tool_call, skill_invocation, error or raw."),
		"role", str("Message role."),
		"content", str("Message text."),
		"name", str("Tool or skill name."),
		"arguments", nullable(looseObject("Tool arguments.")),
		"success", nullable(boolean("Tool call outcome.")),
		"path", str("Skill path."),
		"message", str("Error message."),
	))
	toolCall := open("One tool call.", O(
		"id", str("Call id."),
		"name", str("Tool name."),
		"kind", str("Canonical kind: shell, read, write, edit, search, skill or web."),
		"command", str("A shell call's command with shell wrappers removed."),
		"arguments", nullable(looseObject("Arguments.")),
		"success", boolean("True only when the agent reported the call as succeeded."),
		"outcome", enum("What became of the call; unknown when its result was never recorded.", "succeeded", "failed", "unknown"),
		"duration_ms", integer(0, "Duration."),
	), "name")
	digest := open("Summary of a run.", O(
		"tool_call_count", integer(0, "Tool calls."),
		"tools_used", nullable(strList("Tools used.")),
		"tool_calls", nullable(list(ref("toolCall"), "Tool calls.")),
		"skill_invocations", nullable(list(open("A skill use.", O("name", str("Skill."), "path", str("Path.")), "name"), "Skill uses.")),
		"usage", nullable(looseObject("Token usage.")),
		"session_id", str("Session id."),
		"errors", nullable(strList("Errors.")),
	))
	change := open("A workspace file the run changed.", O(
		"path", nonEmpty("Workspace-relative path."),
		"change", enum("What happened to it.", "added", "modified", "deleted"),
		"size", integer(0, "Size in bytes."),
		"content", str("The start of its text."),
		"binary", boolean("Binary content (not recorded)."),
	), "path", "change")
	run := open("One trial of a task.", O(
		"run_number", integer(0, "Trial number."),
		"attempts", integer(0, "Attempts."),
		"status", status("Outcome."),
		"score", number("Mean grader score."),
		"weighted_score", number("Weighted grader score."),
		"pass_threshold", number("Vally scoring threshold: the trial passes when weighted_score reaches it."),
		"validations", nullable(O("type", "object", "additionalProperties", ref("graderResult"), "description", "Grader results by name.")),
		"final_output", str("The agent's final answer."),
		"transcript", nullable(list(ref("event"), "Normalized transcript.")),
		"session_digest", ref("digest"),
		"duration_ms", integer(0, "Run time."),
		"agent_error", str("Why the agent failed."),
		"stderr", str("Agent standard error."),
		"changed_files", nullable(list(ref("change"), "Changed workspace files.")),
		"error_msg", str("Why the run errored."),
	), "status")
	task := open("One task with its trials.", O(
		"test_id", nonEmpty("Task id."),
		"display_name", str("Task name."),
		"status", status("Outcome."),
		"runs", nullable(O("type", "array", "items", ref("run"), "maxItems", 10000, "description", "Trials.")),
		"stats", nullable(looseObject("Statistics over trials.")),
		"tags", nullable(strList("Tags.")),
		"skip_reason", str("Why it did not run."),
		"prompt", str("The prompt."),
		"error_msg", str("Why it errored before any trial."),
		"source", nullable(ref("location")),
		"definition_hash", str("SHA-256 of the task's definition (prompt, inputs, limits)."),
		"graders_hash", str("SHA-256 of the task's effective graders."),
	), "test_id", "status")
	trigger := open("One trigger prompt in one trial.", O(
		"id", str("Prompt id."),
		"prompt", str("Prompt."),
		"confidence", str("high or medium."),
		"should_trigger", boolean("Expected."),
		"did_trigger", boolean("Observed."),
		"trial", integer(0, "Trial."),
		"error_msg", str("Agent error."),
		"final_output", str("Answer."),
		"transcript", nullable(list(ref("event"), "Transcript.")),
		"tool_calls", nullable(list(ref("toolCall"), "Tool calls.")),
		"duration_ms", integer(0, "Duration."),
		"source", nullable(ref("location")),
	), "should_trigger", "did_trigger")
	metric := open("One gating metric.", O(
		"identifier", str("Metric name."),
		"value", number("Value."),
		"threshold", number("Threshold."),
		"passed", boolean("Met."),
		"weight", number("Weight."),
	), "value", "passed")
	return O(
		"location", location, "graderResult", graderResult, "event", event, "toolCall", toolCall,
		"digest", digest, "change", change, "run", run, "task", task, "trigger", trigger, "metric", metric,
	)
}

// Results is the schema of a results file as skillgate writes it (schema_version present).
func Results() *Obj {
	shard := open("The shard of a sharded run, or (index 0) a merge of all of them.", O(
		"index", integer(0, "1-based shard index; 0 for merged results."),
		"count", integer(1, "Number of shards."),
		"method", enum("How tasks were assigned.", "hash", "durations"),
		"plan", str("Identity of the assignment."),
	), "index", "count", "method")
	config := open("How the suite was run.", O(
		"runs_per_test", integer(0, "Trials per task."),
		"model_id", str("Agent model."),
		"engine_type", str("Executor."),
		"timeout_sec", integer(0, "Per-run limit."),
		"judge_model", str("Judge model."),
		"task_pass_threshold", number("Share of trials a task must pass (absent: every trial)."),
		"shard", nullable(shard),
	))
	summary := open("Aggregates over the tasks.", O(
		"total_tests", integer(0, "Tasks."),
		"succeeded", integer(0, "Passed tasks."),
		"failed", integer(0, "Failed tasks."),
		"errors", integer(0, "Errored tasks."),
		"skipped", integer(0, "Skipped tasks."),
		"success_rate", number("Passed over run tasks."),
		"aggregate_score", number("Mean task score."),
	))
	return O(
		"$schema", draft,
		"$id", BaseURL+"results.schema.json",
		"title", "skillgate results file",
		"description", "One suite run: every task and trial with the agent's recorded run and every grader's result. docs/results.md describes each key.",
		"type", "object",
		"required", []string{"schema_version", "eval_name", "config", "summary", "tasks"},
		"properties", O(
			"schema_version", integer(1, "Version of this format."),
			"eval_id", str("Run id."),
			"skill", str("Skill under test."),
			"eval_name", nonEmpty("Suite name."),
			"timestamp", str("Start time (RFC 3339)."),
			"config", config,
			"summary", summary,
			"metrics", nullable(O("type", "object", "additionalProperties", ref("metric"), "description", "Gating metrics by name.")),
			"tasks", O("type", "array", "items", ref("task"), "maxItems", 100000, "description", "Every task."),
			"trigger_metrics", nullable(looseObject("Trigger confusion counts and ratios.")),
			"trigger_results", nullable(list(ref("trigger"), "Every trigger prompt trial.")),
			"gate", nullable(open("The suite's own decision.", O("passed", boolean("Passed."), "reasons", nullable(strList("Why not."))), "passed")),
			"incomplete", boolean("Interrupted."),
			"provenance", nullable(looseObject("What produced the results.")),
			"baseline_outcome", nullable(O("$ref", "#", "description", "Uplift mode: the run without the skill.")),
			"grader_details", nullable(O("type", "object", "additionalProperties", looseObject("Details keys and values."),
				"description", "Grader details every result of a grader has in common, by grader name, written once; a reader adds them to each result's details.")),
		),
		"$defs", resultsDefs(),
	)
}

const (
	sha         = "^[0-9a-f]{40}([0-9a-f]{24})?$"
	repoName    = "^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$"
	relPath     = "^[^/\\\\\\x00][^\\\\\\x00]{0,499}$"
	commentKey  = "^[A-Za-z0-9._/-]{1,120}$"
	resultsPath = "^results/[a-z0-9._-]{1,200}\\.json$"
)

func pattern(p string, max int, desc string) *Obj {
	return O("type", "string", "pattern", p, "maxLength", max, "description", desc)
}

// PR is the schema of pr.json, the record a collecting run (phase one) writes for the report
// workflow. Every key is required so a truncated or hand-made file is refused as a whole.
func PR() *Obj {
	suite := strictObject("A suite the collecting run evaluated.", O(
		"name", O("type", "string", "minLength", 1, "maxLength", 200, "description", "Suite name."),
		"results", pattern(resultsPath, 220, "Its results file in the bundle: results/<slug>.json."),
		"suite_file", pattern(relPath, 500, "Its eval.yaml, repository-relative, under bundle/tree/ in the bundle."),
	), "name", "results", "suite_file")
	unaffected := strictObject("A suite the change did not affect.", O(
		"name", O("type", "string", "maxLength", 200, "description", "Suite name."),
		"reason", O("type", "string", "maxLength", 500, "description", "Why it did not run."),
	), "name", "reason")
	return O(
		"$schema", draft,
		"$id", BaseURL+"pr.schema.json",
		"title", "skillgate pr.json",
		"description", "What a collecting run (mode: collect, phase one of the fork-safe flow) records for the report workflow. Untrusted: the report mode validates it against this schema and cross-checks the pull request through the API.",
		"type", "object",
		"required", []string{"version", "number", "head_sha", "head_repo", "head_ref", "base_ref", "base_sha", "key", "workflow", "needs_report", "reason", "suites", "unaffected", "skillgate_version", "deferred_grades"},
		"properties", O(
			"version", O("const", 1, "description", "Version of this format."),
			"number", O("type", "integer", "minimum", 1, "maximum", 2147483647, "description", "Pull request number."),
			"head_sha", pattern(sha, 64, "The pull request's head commit."),
			"head_repo", pattern(repoName, 201, "owner/name of the head repository."),
			"head_ref", O("type", "string", "maxLength", 255, "description", "Head branch."),
			"base_ref", O("type", "string", "maxLength", 255, "description", "Base branch."),
			"base_sha", pattern(sha, 64, "Base commit."),
			"key", pattern(commentKey, 120, "The comment and check-run key (workflow file, suite selection)."),
			"workflow", pattern("^([A-Za-z0-9._-]{1,100}\\.ya?ml)?$", 105, "The collecting workflow's file name."),
			"needs_report", boolean("The collecting run published nothing: the report workflow must."),
			"reason", O("type", "string", "maxLength", 500, "description", "Why the run collected."),
			"suites", O("type", "array", "items", suite, "maxItems", 500, "description", "Suites evaluated."),
			"unaffected", O("type", "array", "items", unaffected, "maxItems", 1000, "description", "Suites not run."),
			"skillgate_version", O("type", "string", "maxLength", 100, "description", "Version of the collecting skillgate."),
			"deferred_grades", O("type", "integer", "minimum", 0, "description", "LLM grades left for the report workflow."),
		),
		"additionalProperties", false,
	)
}
