#!/usr/bin/env bash
# Start-up and small-suite cost: `skillgate run` of waza's two example suites (grader-showcase,
# code-explainer; mock executor), and, when WAZA names a waza binary, `waza run` of the same copy
# of the suites interleaved with it. Both run their Python graders with a plain python3 (the
# directory of the real interpreter goes first in PATH, not a version manager's shim).
#   bench/startup.sh SUITES_DIR [ROUNDS]     (SUITES_DIR holds grader-showcase/ and code-explainer/)
#   WAZA=/path/to/waza bench/startup.sh SUITES_DIR 20
#   SKILLGATE=/path/to/skillgate bench/startup.sh ...   (a prebuilt binary instead of this tree's)
# Prints, per tool and suite, the median and best wall time and the median CPU time (user +
# system), in milliseconds. Figures are recorded in docs/performance.md.
set -euo pipefail
suites=${1:?usage: bench/startup.sh SUITES_DIR [ROUNDS]}
rounds=${2:-20}
source "$(dirname "$0")/lib.sh"

build_skillgate
cp -r "$suites" "$work/suites"
python_dir=$(dirname "$(python3 -c 'import sys; print(sys.executable)')")
export PATH="$python_dir:$PATH"

# children_cpu_ms FILE: the user + system CPU time of this shell's finished children recorded in
# FILE by `times`, in ms. `times` must run in this shell itself, not in a pipe or $(…): a forked
# shell starts with no children's time.
children_cpu_ms() {
  awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 }' "$1"
}

# measure TOOL SUITE COMMAND...: one run's wall time (bash's clock, no process of its own around
# the command: `date` and /usr/bin/time each added about a millisecond, a twentieth of a small
# run) and CPU time.
measure() {
  local tool=$1 suite=$2
  shift 2
  local t0 t1
  times >"$work/cpu0"
  t0=$EPOCHREALTIME
  "$@" >/dev/null 2>&1 || true
  t1=$EPOCHREALTIME
  times >"$work/cpu1"
  echo "$tool $suite $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }') $(($(children_cpu_ms "$work/cpu1") - $(children_cpu_ms "$work/cpu0")))" >>"$work/times"
}

for suite in grader-showcase code-explainer; do
  for _ in $(seq "$rounds"); do
    measure skillgate "$suite" "$work/skillgate" run "$work/suites/$suite" --quiet --out "$work/out"
    if [ -n "${WAZA:-}" ]; then
      measure waza "$suite" "$WAZA" run "$work/suites/$suite/eval.yaml" -o "$work/waza.json"
    fi
  done
done

echo "tool suite rounds median_wall_ms best_wall_ms median_cpu_ms (load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores)"
for tool in skillgate waza; do
  for suite in grader-showcase code-explainer; do
    grep "^$tool $suite " "$work/times" >"$work/sel" || continue
    n=$(wc -l <"$work/sel")
    wall=$(cut -d' ' -f3 "$work/sel" | sort -n)
    cpu=$(cut -d' ' -f4 "$work/sel" | sort -n)
    echo "$tool $suite $n $(echo "$wall" | sed -n "$(((n + 1) / 2))p") $(echo "$wall" | head -1) $(echo "$cpu" | sed -n "$(((n + 1) / 2))p")"
  done
done
