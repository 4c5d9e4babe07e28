package build

// BaseURL is where the published schema files live; each file's $id is BaseURL + its name.
const BaseURL = "https://raw.githubusercontent.com/skillgate/skillgate/main/schemas/"

// StrictKey marks schema objects whose unknown keys are errors rather than warnings (grader
// declarations and their configs: a typo there would yield a grader that always passes).
// Validators that do not know it ignore it, as JSON Schema allows.
const StrictKey = "x-skillgate-unknown-keys"

const draft = "https://json-schema.org/draft/2020-12/schema"

// GraderTypes lists every grader type, each described in docs/graders.md (`trigger` is
// also the implicit type behind expected.should_trigger).
var GraderTypes = []string{
	"code", "text", "regex", "file", "diff", "json_schema", "behavior", "action_sequence",
	"skill_invocation", "tool_calls", "tool_constraint", "script", "program", "prompt", "llm",
	"llm_comparison", "human", "human_calibration", "trigger", "task_completed", "keyword",
}

// Executors lists the executor names (and aliases) of this build, for the schema's description.
var Executors = []string{"mock", "replay", "claude-code", "claude", "codex", "copilot", "copilot-sdk", "gemini", "qwen-code", "qwen", "opencode", "command"}

func joinNames(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}

// llmTypes may carry model/rubric/threshold/reference at the grader's top level.
var llmTypes = []string{"prompt", "llm", "llm_comparison"}

func ref(name string) *Obj { return O("$ref", "#/$defs/"+name) }

func str(desc string) *Obj { return O("type", "string", "description", desc) }

func nonEmpty(desc string) *Obj { return O("type", "string", "minLength", 1, "description", desc) }

func boolean(desc string) *Obj { return O("type", "boolean", "description", desc) }

func integer(min int, desc string) *Obj {
	return O("type", "integer", "minimum", min, "description", desc)
}

func number(desc string) *Obj { return O("type", "number", "description", desc) }

func fraction(desc string) *Obj {
	return O("type", "number", "minimum", 0, "maximum", 1, "description", desc)
}

func enum(desc string, values ...string) *Obj {
	return O("type", "string", "enum", values, "description", desc)
}

func strList(desc string) *Obj {
	return O("type", "array", "items", O("type", "string"), "description", desc)
}

// strOrList accepts one string or a list of strings.
func strOrList(desc string) *Obj {
	return O("type", []string{"string", "array"}, "items", O("type", "string"), "description", desc)
}

func list(items *Obj, desc string) *Obj {
	return O("type", "array", "items", items, "description", desc)
}

// object is a closed mapping: unknown keys are reported (as warnings unless strict).
func object(desc string, props *Obj, required ...string) *Obj {
	o := O("type", "object", "description", desc)
	if len(required) > 0 {
		o.Set("required", required)
	}
	o.Set("properties", props)
	o.Set("additionalProperties", false)
	return o
}

// strictObject is a closed mapping whose unknown keys are errors.
func strictObject(desc string, props *Obj, required ...string) *Obj {
	return object(desc, props, required...).Set(StrictKey, "error")
}

// looseObject accepts any keys; reserved for settings later stages define.
func looseObject(desc string) *Obj { return O("type", "object", "description", desc) }

// graderConfigs returns the per-type config definitions, keyed by type, in GraderTypes order.
func graderConfigs() []struct {
	Type string
	Def  *Obj
	// RequireConfig is true when the type cannot work without its config block.
	RequireConfig bool
} {
	pattern := O("type", []string{"string", "object"},
		"description", "A regular expression matched against each tool call (`name arguments-as-JSON`) and the command of shell-like tools; a plain string is short for {pattern: …}.",
		"required", []string{"pattern"},
		"properties", O("pattern", nonEmpty("Regular expression (RE2).")),
		"additionalProperties", false,
		StrictKey, "error")
	toolSpec := O("type", []string{"string", "object"},
		"description", "A tool to look for: a plain string is an exact tool name; a mapping's patterns are case-insensitive, unanchored regular expressions.",
		"required", []string{"tool"},
		"properties", O(
			"tool", nonEmpty("Tool name pattern."),
			"command_pattern", str("Pattern for the call's `command` argument."),
			"skill_pattern", str("Pattern for the call's `skill` argument."),
			"path_pattern", str("Pattern for the call's `path` argument."),
		),
		"additionalProperties", false,
		StrictKey, "error")
	contentPattern := strictObject("Regular expressions checked against one workspace file.", O(
		"path", nonEmpty("Workspace-relative file path."),
		"must_match", strList("Patterns the file content must match."),
		"must_not_match", strList("Patterns the file content must not match."),
	), "path")
	expectedFile := strictObject("One workspace file to compare.", O(
		"path", nonEmpty("Workspace-relative file path."),
		"snapshot", str("Expected file, relative to the context dir; compared byte for byte."),
		"contains", strList("Fragments: `+x` or `x` must be present, `-x` must be absent."),
	), "path")
	scoreType := enum("How to read the judge's 1–5 score: `normalized` ((s−1)/4) or `raw`.", "normalized", "raw")
	threshold := fraction("Pass threshold on the 0–1 score (default 0.75).")

	type entry = struct {
		Type          string
		Def           *Obj
		RequireConfig bool
	}
	return []entry{
		{"code", strictObject("code grader: assertions that must all be truthy.", O(
			"assertions", strList("Expressions evaluated against output, outcome, transcript, tool_calls, errors, duration_ms."),
			"language", enum("Assertion language (default python).", "python", "javascript", "expr"),
		)), false},
		{"text", strictObject("text grader: substring and regular-expression checks on the output.", O(
			"contains", strList("Substrings that must appear (case-insensitive)."),
			"contains_any", strList("Substrings of which at least one must appear (case-insensitive); one check."),
			"not_contains", strList("Substrings that must not appear (case-insensitive)."),
			"contains_cs", strList("Substrings that must appear (case-sensitive)."),
			"not_contains_cs", strList("Substrings that must not appear (case-sensitive)."),
			"regex_match", strList("Patterns (RE2) that must match the raw output."),
			"regex_not_match", strList("Patterns (RE2) that must not match the raw output."),
			"pattern", str("One pattern (RE2) that must match: a one-item regex_match."),
		)), false},
		{"regex", strictObject("regex grader (legacy name): patterns matched against the output.", O(
			"must_match", strList("Patterns (RE2) that must match."),
			"must_not_match", strList("Patterns (RE2) that must not match."),
			"pattern", str("One pattern (RE2) that must match: a one-item must_match."),
		)), false},
		{"file", strictObject("file grader: files in the workspace after the run.", O(
			"must_exist", strList("Workspace-relative paths that must exist."),
			"must_not_exist", strList("Workspace-relative paths that must not exist."),
			"content_patterns", list(contentPattern, "Pattern checks on file contents."),
		)), false},
		{"diff", strictObject("diff grader: workspace files against snapshots and fragments.", O(
			"expected_files", list(expectedFile, "Files to check."),
			"context_dir", str("Folder snapshots resolve against (default: the suite's context dir)."),
		), "expected_files"), true},
		{"json_schema", strictObject("json_schema grader: the output must be JSON valid against a schema.", O(
			"schema", O("type", []string{"object", "boolean"}, "description", "Inline JSON Schema."),
			"schema_file", str("JSON Schema file, relative to the declaring file."),
			"description", str("What the schema checks (kept in the results)."),
			"extract_json", boolean("Take the first JSON object or array found in the output when the whole output is not JSON."),
			"skip_if_no_match", boolean("Skip the grader (it counts in no score) when the output holds no JSON."),
		)), false},
		{"behavior", strictObject("behavior grader: limits on tool calls, tokens and duration; required and forbidden tools.", O(
			"max_tool_calls", integer(0, "Most tool calls allowed."),
			"max_tokens", integer(0, "Most input+output tokens allowed."),
			"max_duration_ms", integer(0, "Longest run allowed, in milliseconds."),
			"required_tools", strList("Tool names (exact) that must be called."),
			"forbidden_tools", strList("Tool names (exact) that must not be called."),
			"skip_if_no_digest", boolean("Skip the grader (it counts in no score) on runs that recorded no session digest (no transcript, tool calls, usage or session id: the mock executor)."),
		)), false},
		{"action_sequence", strictObject("action_sequence grader: the tool calls against an expected sequence.", O(
			"matching_mode", enum("How to compare.", "exact_match", "in_order_match", "any_order_match"),
			"expected_actions", list(O("type", []string{"string", "object"}, "description", "A tool name, or a mapping naming it under tool, name or action."), "Expected tool names, in order."),
		), "matching_mode", "expected_actions"), true},
		{"skill_invocation", strictObject("skill_invocation grader: which skills the agent invoked, in which order.", O(
			"required_skills", strList("Skill names that must be invoked."),
			"forbidden_skills", strList("Skill names that must not be invoked: one invoked makes the score 0."),
			"mode", enum("How to compare required_skills (needed with them).", "exact_match", "in_order", "any_order"),
			"allow_extra", boolean("Allow invocations beyond the required ones without penalty (default true)."),
		)), true},
		{"tool_calls", strictObject("tool_calls grader (legacy name): patterns over the tool calls.", O(
			"required", list(pattern, "Patterns some tool call must match."),
			"forbidden", list(pattern, "Patterns no tool call may match."),
			"max_calls", integer(0, "Most tool calls allowed."),
		)), false},
		{"tool_constraint", strictObject("tool_constraint grader: expected and rejected tools, turn and token limits.", O(
			"expect_tools", list(toolSpec, "Tools that must be used."),
			"reject_tools", list(toolSpec, "Tools that must not be used."),
			"max_turns", integer(0, "Most conversation turns allowed."),
			"max_tokens", integer(0, "Most input+output tokens allowed."),
		)), false},
		{"script", strictObject("script grader: runs a script that reads the grading context as JSON and prints a result.", O(
			"script", nonEmpty("Script path, relative to the declaring file."),
			"timeout", O("type", "number", "exclusiveMinimum", 0, "description", "Seconds before the script is killed (default 30)."),
		), "script"), true},
		{"program", strictObject("program grader: runs a command with the output on stdin; exit 0 passes.", O(
			"command", nonEmpty("Program to run."),
			"args", strList("Arguments."),
			"timeout", O("type", "number", "exclusiveMinimum", 0, "description", "Seconds before the program is killed (default 30)."),
		), "command"), true},
		{"prompt", strictObject("prompt grader: an LLM judge that calls set_waza_grade_pass / set_waza_grade_fail.", O(
			"prompt", str("Instructions for the judge."),
			"model", str("Judge model (default: config.judge_model, else the endpoint's default)."),
			"rubric", str("Rubric text or file path; the judge then scores 1–5 as for llm."),
			"threshold", threshold,
			"score_type", scoreType,
			"response_format", enum("Expected judge response format.", "json", "text"),
			"continue_session", boolean("Resume the agent's session so the judge sees the full context."),
			"mode", enum("Judging mode.", "independent", "pairwise"),
		)), false},
		{"llm", strictObject("llm grader: an LLM judge scoring the output 1–5 against a rubric.", O(
			"rubric", str("Rubric text or file path."),
			"model", str("Judge model."),
			"threshold", threshold,
			"score_type", scoreType,
		)), false},
		{"llm_comparison", strictObject("llm_comparison grader: an LLM judge comparing the output with a reference.", O(
			"reference", str("Reference answer."),
			"model", str("Judge model."),
			"rubric", str("Rubric text or file path."),
			"threshold", threshold,
			"score_type", scoreType,
		)), false},
		{"human", strictObject("human grader: pending until labels are supplied.", O(
			"instructions", str("Instructions for the reviewer."),
			"criteria", strList("Review criteria."),
		)), false},
		{"human_calibration", strictObject("human_calibration grader: agreement between human labels and an LLM grader.", O(
			"calibrate_grader", nonEmpty("Name of the LLM grader to calibrate."),
		), "calibrate_grader"), true},
		{"keyword", strictObject("keyword grader (of some waza releases): keywords that must or must not occur in the output, case-insensitive.", O(
			"must_contain", strList("Keywords that must occur."),
			"keywords", strList("Older name of must_contain."),
			"must_not_contain", strList("Keywords that must not occur."),
		)), false},
		{"task_completed", strictObject("task_completed grader: the agent finished the run without an error or a timeout.", O()), false},
		{"trigger", strictObject("trigger grader: whether the skill under test was invoked (skill, should_trigger); or, with skill_path and mode, how well the task's prompt matches the skill's SKILL.md (waza's heuristic).", O(
			"skill", nonEmpty("Skill name (default: the suite's skill)."),
			"should_trigger", boolean("Whether the skill must be invoked (true) or must not be (false)."),
			"skill_path", nonEmpty("The skill's SKILL.md, relative to the working directory or the repository root (waza's heuristic)."),
			"mode", enum("positive: the prompt must match the skill; negative: it must not.", "positive", "negative"),
			"threshold", fraction("Score at which a prompt matches the skill (default 0.6)."),
		)), true},
	}
}

// ConfigDefName is the $defs name of a grader type's config.
func ConfigDefName(graderType string) string { return "config_" + graderType }

func others(all []string, except ...string) []string {
	var out []string
outer:
	for _, a := range all {
		for _, e := range except {
			if a == e {
				continue outer
			}
		}
		out = append(out, a)
	}
	return out
}

// graderDefs returns the $defs shared by the eval and task schemas for grader declarations.
func graderDefs(defs *Obj) {
	var rules []any
	for _, c := range graderConfigs() {
		then := O("properties", O("config", ref(ConfigDefName(c.Type))))
		if c.RequireConfig {
			then.Set("required", []string{"config"})
		}
		rules = append(rules, O(
			"if", O("required", []string{"type"}, "properties", O("type", O("const", c.Type))),
			"then", then,
		))
	}
	notLLM := others(GraderTypes, llmTypes...)
	rules = append(rules,
		O("if", O("required", []string{"type"}, "properties", O("type", O("enum", notLLM))),
			"then", O("properties", O("model", false, "rubric", false, "threshold", false, "reference", false))),
		O("if", O("required", []string{"type"}, "properties", O("type", O("enum", others(GraderTypes, "code")))),
			"then", O("properties", O("assertions", false))),
	)
	item := strictObject("A grader: {type, name, weight, config}.", O(
		"type", enum("Grader type.", GraderTypes...),
		"name", nonEmpty("Grader name, unique within its scope (default: the type). Results are keyed by it."),
		"weight", number("Weight in the weighted score; ≤ 0 or missing means 1.0."),
		"config", O("type", "object", "description", "Type-specific settings."),
		"assertions", strList("Shortcut for a code grader's config.assertions."),
		"model", str("LLM graders: judge model (config.model wins)."),
		"rubric", str("LLM graders: rubric text or file (config.rubric wins)."),
		"threshold", fraction("LLM graders: pass threshold (config.threshold wins)."),
		"reference", str("llm_comparison: reference answer (config.reference wins)."),
	))
	item.Set("allOf", rules)
	defs.Set("graderItem", item)
	defs.Set("grader", O("$ref", "#/$defs/graderItem", "required", []string{"type"},
		"description", "A top-level grader, applied to every task."))
	defs.Set("taskGrader", O(
		"description", "A task grader: a full definition, {name} alone or just the name of a top-level grader (a reference), or {assertions} (a code grader).",
		"if", O("type", "string"),
		"then", O("minLength", 1),
		"else", ref("graderItem"),
	))
	for _, c := range graderConfigs() {
		defs.Set(ConfigDefName(c.Type), c.Def)
	}
}

func taskDefs(defs *Obj) {
	defs.Set("inputFile", object("A workspace file: copied from the context dir, or written from content.", O(
		"path", nonEmpty("Workspace-relative path; also where the file is read from in the context dir."),
		"content", str("Inline content (the file is written from it instead of copied)."),
	), "path"))
	defs.Set("taskInputs", object("What the agent gets.", O(
		"prompt", str("The prompt; a template ({{name}}, {{.Vars.name}}, {{.TaskName}}, {{fixture:path}})."),
		"files", list(ref("inputFile"), "Files placed in the workspace."),
		"context", O("type", []string{"string", "object", "array"}, "description", "Extra context appended to the prompt as a fenced block."),
		"environment", O("type", "object", "additionalProperties", O("type", []string{"string", "number", "boolean", "null"}),
			"description", "Environment variables for the agent process."),
		"follow_up_prompts", strList("Prompts of later turns (newer waza releases). Not sent yet: only the first prompt is (warning)."),
	), "prompt"))
	defs.Set("outcome", object("An expected outcome, graded by an implicit grader.", O(
		"type", enum("Outcome kind.", "task_completed", "file_exists", "file_not_exists", "output_contains", "output_not_contains", "output_matches"),
		"value", nonEmpty("File path, substring or pattern (every type but task_completed)."),
		"condition", str("Accepted for compatibility; not used."),
	), "type"))
	defs.Set("expectedBehavior", object("Behaviour limits, graded by the implicit `expected_behavior` grader.", O(
		"max_tool_calls", integer(0, "Most tool calls allowed."),
		"max_tokens", integer(0, "Most input+output tokens allowed."),
		"max_duration_ms", integer(0, "Longest run allowed, in milliseconds."),
		"max_response_time_ms", integer(0, "Same as max_duration_ms (older name)."),
		"required_tools", strList("Tool names that must be called."),
		"forbidden_tools", strList("Tool names that must not be called."),
		"max_iterations", integer(0, "Most conversation turns (implicit `expected_turns` tool_constraint grader)."),
	)))
	defs.Set("expectedToolCalls", object("Tool call patterns, graded by the implicit `expected_tool_calls` grader.", O(
		"required", list(O("type", []string{"string", "object"}, "required", []string{"pattern"},
			"properties", O("pattern", nonEmpty("Pattern.")), "additionalProperties", false), "Patterns some call must match."),
		"forbidden", list(O("type", []string{"string", "object"}, "required", []string{"pattern"},
			"properties", O("pattern", nonEmpty("Pattern.")), "additionalProperties", false), "Patterns no call may match."),
		"max_calls", integer(0, "Most tool calls allowed."),
	)))
	defs.Set("expected", object("Expectations, each graded by an implicit grader.", O(
		"output_contains", strOrList("Substrings the output must contain (case-insensitive)."),
		"output_not_contains", strOrList("Substrings the output must not contain (case-insensitive)."),
		"output_contains_any", strOrList("Substrings of which the output must contain at least one (case-insensitive)."),
		"graders", list(ref("taskGrader"), "The graders of this task instead of all top-level ones: names of top-level graders or full definitions."),
		"outcomes", list(ref("outcome"), "Expected outcomes."),
		"behavior", ref("expectedBehavior"),
		"tool_calls", ref("expectedToolCalls"),
		"should_trigger", boolean("Whether the skill under test must be invoked."),
	)))
	defs.Set("task", object("A task.", taskProps()))
}

func taskProps() *Obj {
	return O(
		"id", O("type", []string{"string", "integer"}, "minLength", 1, "description", "Unique id (default: the file name without extension)."),
		"name", str("Display name (default: the id)."),
		"description", str("What the task checks."),
		"enabled", boolean("false drops the task."),
		"tags", strList("Tags for filtering."),
		"timeout_seconds", integer(1, "Per-run limit in seconds (default: config.timeout_seconds)."),
		"early_stop", earlyStop(),
		"context_dir", str("Fixture folder for this task, relative to the task file."),
		"inputs", ref("taskInputs"),
		"expected", ref("expected"),
		"graders", list(ref("taskGrader"), "Graders added to (or replacing same-named) top-level graders."),
	)
}

// earlyStop is a task's early_stop mapping.
func earlyStop() *Obj {
	return object("Stop the agent once the run's outcome is known (docs/format.md#early-stop); the run records stopped_early.", O(
		"skill_call", O("description", "Stop once this skill is invoked (true: the suite's skill).", "type", []any{"string", "boolean"}),
		"tool_call_count", integer(1, "Stop after this many tool calls."),
		"output_matches", nonEmpty("Stop once an assistant message matches this regular expression (Go RE2)."),
	))
}

// Eval returns eval.schema.json.
func Eval() *Obj {
	defs := O()
	defs.Set("config", object("Run settings.", O(
		"trials_per_task", integer(1, "Independent runs per task (default 1)."),
		"timeout_seconds", integer(1, "Per-run limit in seconds (default 300)."),
		"parallel", boolean("Run tasks concurrently (default false)."),
		"max_workers", integer(0, "Concurrency when parallel (default 4; 0 means the default)."),
		"workers", integer(0, "Alias of max_workers."),
		"fail_fast", boolean("Stop scheduling after the first task that does not pass."),
		"max_attempts", integer(0, "Attempts per trial while it fails (default 1)."),
		"task_pass_threshold", O("type", "number", "exclusiveMinimum", 0, "maximum", 1, "description", "Share of a task's trials that must pass for the task to pass (default 1: every trial). Lower it for agents accepted as flaky, e.g. 0.8."),
		"executor", str("Agent that runs the tasks (default mock): "+joinNames(Executors)+". skillgate checks the name only when the suite runs with it, so --executor can stand in for one this build lacks."),
		"engine", str("Alias of executor."),
		"model", str("Model handed to the agent."),
		"judge_model", str("Model for LLM graders that name none."),
		"skill_directories", strList("Skill folders to install for the agent, relative to eval.yaml."),
		"required_skills", strList("Skill names that must be found in skill_directories (SKILL.md frontmatter name)."),
		"group_by", str("`model` groups results by model."),
		"command", looseObject("Settings of the `command` executor."),
		"executors", looseObject("Per-executor settings."),
		"judge", object("LLM judge endpoint (default: GitHub Models with GITHUB_TOKEN). --judge-base-url, SKILLGATE_JUDGE_BASE_URL and SKILLGATE_JUDGE_API_KEY override it.", O(
			"base_url", nonEmpty("OpenAI-compatible base URL; /chat/completions is appended (e.g. https://models.github.ai/inference)."),
			"api_key_env", nonEmpty("Name of the environment variable holding the API key (never the key itself)."),
			"model", str("Judge model for LLM graders that name none (config.judge_model wins)."),
			"max_concurrency", integer(1, "Judge requests in flight (default 5, GitHub Models' free tier)."),
			"timeout_seconds", O("type", "number", "exclusiveMinimum", 0, "description", "Time budget of one judgement, retries included (default 180)."),
		)),
		"agent_args", strList("Extra arguments for the agent CLI."),
		"agent_path", str("Path of the agent CLI."),
		"mcp_servers", looseObject("Accepted for compatibility with waza; not used."),
		"cache", boolean("false never reuses a recorded run for this suite: every run executes the agent (default true; docs/format.md#the-run-cache)."),
		"cache_inputs", strList("Globs, relative to eval.yaml, of the files the agent reads besides its inputs and skills (a data folder, a script it calls): their contents are part of the run key, so changing one executes the runs again (docs/format.md#the-run-cache)."),
		"trigger_early_stop", O("description", "Stop trigger prompts once the decision is known: the skill was invoked, or tool_call_count tool calls (default 3) were made without it. false runs them to the end.",
			"anyOf", []any{boolean("true (the default) or false."), object("Early-stop settings of trigger prompts.", O(
				"tool_call_count", integer(0, "Tool calls without the skill after which a prompt counts as not triggered (0: no limit)."),
			))}),
		"pricing", O("type", "object", "description", "Price table by model id, in US dollars per million tokens, for cost estimates where the agent reports no cost.",
			"additionalProperties", object("The price of one model.", O(
				"input", number("Input tokens."),
				"output", number("Output tokens."),
				"cache_read", number("Cached input tokens read."),
				"cache_write", number("Cached input tokens written (default: the input price)."),
			), "input", "output")),
		"max_tokens", integer(1, "Budget of one run in tokens (input and output): the agent is stopped and the run errors beyond it."),
		"max_cost", O("type", "number", "exclusiveMinimum", 0, "description", "Budget of one run in US dollars (needs a cost from the agent or pricing): the agent is stopped and the run errors beyond it."),
	)))
	defs.Set("hook", object("A shell command run around the suite or each task.", O(
		"command", nonEmpty("Command line, run through a shell."),
		"working_directory", str("Folder to run in, relative to eval.yaml (default: its folder)."),
		"exit_codes", list(O("type", "integer"), "Accepted exit codes (default [0])."),
		"error_on_fail", boolean("Fail the run when the exit code is not accepted (default: warn)."),
	), "command"))
	defs.Set("hooks", object("Commands run before and after the suite and each task.", O(
		"before_run", list(ref("hook"), "Before any task."),
		"after_run", list(ref("hook"), "After every task, even on error."),
		"before_task", list(ref("hook"), "Before each task."),
		"after_task", list(ref("hook"), "After each task."),
	)))
	defs.Set("metric", object("A gating metric.", O(
		"name", nonEmpty("trigger_accuracy, task_completion, aggregate_score, weighted_score, trigger_precision, trigger_recall or trigger_f1."),
		"threshold", fraction("The run fails when the metric is below it."),
		"weight", number("Weight (default 1)."),
		"enabled", boolean("false turns the metric off (default true)."),
		"description", str("What the metric means here."),
	), "name"))
	defs.Set("taskFiles", object("Task files by glob.", O(
		"task_files", O("type", []string{"string", "array"}, "items", nonEmpty("Glob."), "minLength", 1,
			"description", "Globs relative to eval.yaml (`**` allowed)."),
	), "task_files"))
	defs.Set("taskSource", O(
		"description", "A glob of task files, {task_files: [globs]}, or an inline task.",
		"type", []string{"string", "object"},
		"if", O("type", "string"),
		"then", O("minLength", 1),
		"else", O(
			"if", O("required", []string{"task_files"}),
			"then", ref("taskFiles"),
			"else", O("$ref", "#/$defs/task", "required", []string{"id"}),
		),
	))
	taskDefs(defs)
	graderDefs(defs)

	return O(
		"$schema", draft,
		"$id", BaseURL+"eval.schema.json",
		"title", "skillgate eval suite (eval.yaml)",
		"description", "An eval suite: settings, graders, metrics and tasks. See docs/format.md.",
		"type", "object",
		"properties", O(
			"name", nonEmpty("Suite name (default: the folder name)."),
			"description", str("What the suite covers."),
			"version", O("type", []string{"string", "number"}, "description", "Suite version (informational)."),
			"schemaVersion", O("type", []string{"string", "number"}, "description", "Format version written by waza (informational)."),
			"skill", str("Skill under test."),
			"config", ref("config"),
			"inputs", O("type", "object", "additionalProperties", O("type", []string{"string", "number", "boolean", "null"}),
				"description", "Template variables for prompts."),
			"hooks", ref("hooks"),
			"graders", list(ref("grader"), "Top-level graders, applied to every task in order."),
			"metrics", list(ref("metric"), "Gating metrics."),
			"tasks", list(ref("taskSource"), "Task sources, in any mix."),
			"tasks_from", nonEmpty("CSV file of tasks (header row; columns id, name, prompt; others are template variables)."),
			"range", O("type", "array", "items", O("type", "integer", "minimum", 0), "minItems", 2, "maxItems", 2,
				"description", "1-based inclusive row range of tasks_from: [start, end]; [0, 0] (waza's zero value) means every row."),
			"baseline", boolean("Also run every task without the skill (uplift mode)."),
		),
		"additionalProperties", false,
		"$defs", defs,
	)
}

// Task returns task.schema.json: one task file.
func Task() *Obj {
	defs := O()
	taskDefs(defs)
	graderDefs(defs)
	return O(
		"$schema", draft,
		"$id", BaseURL+"task.schema.json",
		"title", "skillgate task file",
		"description", "One task of an eval suite. See docs/format.md.",
		"type", "object",
		"properties", taskProps(),
		"additionalProperties", false,
		"$defs", defs,
	)
}

// TriggerTests returns trigger_tests.schema.json.
func TriggerTests() *Obj {
	prompt := object("A prompt.", O(
		"prompt", nonEmpty("The prompt."),
		"reason", str("Why (documentation only)."),
		"confidence", enum("Weight in the metrics: high 1.0 (default), medium 0.5.", "high", "medium"),
		"id", nonEmpty("Id (default should-N / should-not-N); the replay executor reads trigger-<id>.json."),
	), "prompt")
	return O(
		"$schema", draft,
		"$id", BaseURL+"trigger_tests.schema.json",
		"title", "skillgate trigger tests (trigger_tests.yaml)",
		"description", "Prompts that should and should not invoke the skill.",
		"type", "object",
		"required", []string{"skill"},
		"properties", O(
			"skill", nonEmpty("Skill name the agent must (not) invoke."),
			"should_trigger_prompts", list(ref("prompt"), "Prompts that must invoke the skill."),
			"should_not_trigger_prompts", list(ref("prompt"), "Prompts that must not invoke the skill."),
		),
		"additionalProperties", false,
		"$defs", O("prompt", prompt),
	)
}

// Files maps each schema file name to its definition.
func Files() map[string]*Obj {
	return map[string]*Obj{
		"eval.schema.json":          Eval(),
		"task.schema.json":          Task(),
		"trigger_tests.schema.json": TriggerTests(),
		"results.schema.json":       Results(),
		"pr.schema.json":            PR(),
	}
}
