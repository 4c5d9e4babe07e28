#!/usr/bin/env bash
# Measures the run cache over a sequence of pull requests (docs/performance.md, "The run
# cache"): a suite run by the `command` executor, whose agent sleeps SLEEP seconds per run and
# logs every invocation, goes through a base run and four changes — a grader-only change, one
# task's prompt changed, the skill changed, no change — each run once with the cache and once
# with --no-cache. Agent invocations and agent-seconds (invocations × SLEEP) do not depend on the
# machine's load; the wall time does.
#   bench/runcache.sh [TASKS] [TRIALS] [TRIGGERS] [SLEEP] [WORKERS]   (defaults: 20 3 10 0.5 8)
set -euo pipefail
tasks=${1:-20}
trials=${2:-3}
triggers=${3:-10}
sleep_s=${4:-0.5}
workers=${5:-8}
source "$(dirname "$0")/lib.sh"
build_skillgate

suite=$work/suite
mkdir -p "$suite/skills/greeter" "$suite/tasks"
cat >"$suite/agent.sh" <<AGENT
#!/bin/sh
echo "\$1" >> "$work/invocations.log"
sleep $sleep_s
case "\$1" in *greet*) echo '{"event":"call","call":{"id":"c1","tool":"load_skill","input":{"skill":"greeter"}}}' ;; esac
echo "{\"event\":\"say\",\"text\":\"Hello! You asked: \$1\"}"
echo '{"event":"usage","tokens":{"in":1200,"out":80}}'
echo '{"event":"done","answer":"Hello!"}'
AGENT
chmod +x "$suite/agent.sh"
printf -- '---\nname: greeter\ndescription: Greets people.\n---\nSay hello.\n' >"$suite/skills/greeter/SKILL.md"
cat >"$suite/eval.yaml" <<YAML
name: runcache
skill: greeter
config:
  executor: command
  trials_per_task: $trials
  parallel: true
  max_workers: $workers
  skill_directories: [skills]
  agent_path: ./agent.sh
  command:
    argv: [agent, "{prompt}"]
    map:
      rules:
        - {when: {event: call, call.tool: load_skill}, emit: tool_call, id: call.id, name: call.tool, skill: call.input.skill}
        - {when: {event: say}, emit: message, content: text}
        - {when: {event: usage}, emit: none, usage: {input_tokens: tokens.in, output_tokens: tokens.out}}
        - {when: {event: done}, emit: final, content: answer}
graders:
  - {type: text, name: answered, config: {contains: ["Hello"]}}
tasks:
  - tasks/*.yaml
YAML
for i in $(seq 1 "$tasks"); do
	printf 'id: t%02d\ninputs:\n  prompt: "Say hello to person %d."\n' "$i" "$i" >"$suite/tasks/t$i.yaml"
done
{
	echo "skill: greeter"
	echo "should_trigger_prompts:"
	for i in $(seq 1 $((triggers / 2))); do echo "  - prompt: Please greet visitor $i."; done
	echo "should_not_trigger_prompts:"
	for i in $(seq 1 $((triggers - triggers / 2))); do echo "  - prompt: List the files of folder $i."; done
} >"$suite/trigger_tests.yaml"

# step NAME: the suite's next state (each change on top of the last).
change() {
	case $1 in
	grader-only) sed -i 's/contains: \["Hello"\]/contains: ["Hello!"]/' "$suite/eval.yaml" ;;
	one-task) sed -i 's/person 1\./person one./' "$suite/tasks/t1.yaml" ;;
	skill) echo "Be brief." >>"$suite/skills/greeter/SKILL.md" ;;
	no-change | base) ;;
	esac
}

printf '%-12s %-8s %12s %14s %9s\n' step cache invocations agent_seconds wall_s
for step in base grader-only one-task skill no-change; do
	change "$step"
	for mode in cache no-cache; do
		flags=(--run-cache-dir "$work/runs")
		[ "$mode" = no-cache ] && flags=(--no-cache)
		: >"$work/invocations.log"
		start=$(date +%s.%N)
		"$work/skillgate" run "$suite" --quiet --out "$work/out-$mode" "${flags[@]}" >/dev/null 2>&1 || true
		end=$(date +%s.%N)
		n=$(wc -l <"$work/invocations.log")
		printf '%-12s %-8s %12d %14.1f %9.1f\n' "$step" "$mode" "$n" "$(echo "$n * $sleep_s" | bc)" "$(echo "$end - $start" | bc)"
	done
done
