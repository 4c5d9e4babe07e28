#!/usr/bin/env bash
# Measures a full `skillgate run` on a generated suite: wall time and peak RSS.
#   bench/run.sh [TASKS] [TRIALS] [WORKERS]      (defaults: 10000 3 4)
# Figures are recorded in docs/performance.md.
set -euo pipefail
tasks=${1:-10000}
trials=${2:-3}
workers=${3:-4}
source "$(dirname "$0")/lib.sh"

build_skillgate
go run "$root/bench/gensuite" -tasks "$tasks" -trials "$trials" -out "$work/suite"

status=0
/usr/bin/time -f '%e %M' -o "$work/time" \
  "$work/skillgate" run "$work/suite" --parallel --workers "$workers" --quiet --out "$work/out" \
  >"$work/stdout" 2>"$work/stderr" || status=$?
read -r wall rss <"$work/time"
size=$(wc -c <"$work/out/results/bench.json")
echo "tasks=$tasks trials=$trials workers=$workers exit=$status wall=${wall}s peak_rss=$((rss / 1024))MB results_json=$((size / 1024 / 1024))MB cores=$(nproc)"
if [ "$status" -ne 0 ]; then
  tail -n 20 "$work/stderr" >&2
  exit 1
fi
