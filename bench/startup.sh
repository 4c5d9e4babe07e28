#!/usr/bin/env bash
# Start-up and small-suite cost: `skillgate run` of waza's two example suites (grader-showcase,
# code-explainer; mock executor), and, when WAZA names a waza binary, `waza run` of the same copy
# of the suites interleaved with it. Both run their Python graders with a plain python3 (the
# directory of the real interpreter goes first in PATH, not a version manager's shim).
#   bench/startup.sh SUITES_DIR [ROUNDS]     (SUITES_DIR holds grader-showcase/ and code-explainer/)
#   WAZA=/path/to/waza bench/startup.sh SUITES_DIR 20
#   SKILLGATE=/path/to/skillgate bench/startup.sh ...   (a prebuilt binary instead of this tree's)
# Prints, per tool and suite, the median and best wall time in milliseconds and the median CPU
# time (user + system, 10 ms resolution). Figures are recorded in docs/performance.md.
set -euo pipefail
suites=${1:?usage: bench/startup.sh SUITES_DIR [ROUNDS]}
rounds=${2:-20}
source "$(dirname "$0")/lib.sh"

build_skillgate
cp -r "$suites" "$work/suites"
python_dir=$(dirname "$(python3 -c 'import sys; print(sys.executable)')")
export PATH="$python_dir:$PATH"

measure() { # tool suite command...
  local tool=$1 suite=$2
  shift 2
  local t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -f '%U %S' -o "$work/cpu" "$@" >/dev/null 2>&1 || true
  t1=$(date +%s%N)
  # GNU time puts "Command exited with non-zero status N" first when the suite fails.
  echo "$tool $suite $(((t1 - t0) / 1000000)) $(tail -n 1 "$work/cpu" | awk '{print $1 + $2}')" >>"$work/times"
}

for suite in grader-showcase code-explainer; do
  for _ in $(seq "$rounds"); do
    measure skillgate "$suite" "$work/skillgate" run "$work/suites/$suite" --quiet --out "$work/out"
    if [ -n "${WAZA:-}" ]; then
      measure waza "$suite" "$WAZA" run "$work/suites/$suite/eval.yaml" -o "$work/waza.json"
    fi
  done
done

echo "tool suite rounds median_wall_ms best_wall_ms median_cpu_s (load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores)"
for tool in skillgate waza; do
  for suite in grader-showcase code-explainer; do
    grep "^$tool $suite " "$work/times" >"$work/sel" || continue
    n=$(wc -l <"$work/sel")
    wall=$(cut -d' ' -f3 "$work/sel" | sort -n)
    cpu=$(cut -d' ' -f4 "$work/sel" | sort -n)
    echo "$tool $suite $n $(echo "$wall" | sed -n "$(((n + 1) / 2))p") $(echo "$wall" | head -1) $(echo "$cpu" | sed -n "$(((n + 1) / 2))p")"
  done
done
