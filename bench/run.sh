#!/usr/bin/env bash
# Measures a full `skillgate run` on a generated suite: wall time, CPU time and peak RSS.
#   bench/run.sh [TASKS] [TRIALS] [WORKERS]      (defaults: 10000 3 4)
# SHARD=i/n runs one shard of it instead (`--shard i/n`); SHARD=compare runs the full run and
# shard 1/20 in turn, three times each, with --no-cache (writing the run cache costs more than
# loading), and prints the ratio of their median CPU times.
# SKILLGATE=path measures that binary instead of building this tree (to compare two versions).
# Figures are recorded in docs/performance.md.
set -euo pipefail
tasks=${1:-10000}
trials=${2:-3}
workers=${3:-4}
source "$(dirname "$0")/lib.sh"

build_skillgate
go run "$root/bench/gensuite" -tasks "$tasks" -trials "$trials" -out "$work/suite"

# measure SHARD [FLAG...]: one run (SHARD "" for the full run); prints its figures, leaves the CPU
# seconds in $cpu.
measure() {
  local shard=$1 status=0 wall user sys rss size
  shift
  rm -rf "$work/out"
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" \
    "$work/skillgate" run "$work/suite" --parallel --workers "$workers" --quiet --out "$work/out" \
    ${shard:+--shard "$shard"} "$@" >"$work/stdout" 2>"$work/stderr" || status=$?
  read -r wall user sys rss <"$work/time"
  cpu=$(echo "$user + $sys" | bc)
  size=$(wc -c <"$work/out/results/bench.json")
  echo "tasks=$tasks trials=$trials workers=$workers shard=${shard:-none} exit=$status wall=${wall}s cpu=${cpu}s peak_rss=$((rss / 1024))MB results_json=$((size / 1024 / 1024))MB cores=$(nproc) load=$(cut -d' ' -f1 /proc/loadavg)"
  if [ "$status" -ne 0 ]; then
    tail -n 20 "$work/stderr" >&2
    exit 1
  fi
}

if [ "${SHARD:-}" != compare ]; then
  measure "${SHARD:-}"
  exit 0
fi
full=() part=()
for _ in 1 2 3; do
  measure "" --no-cache
  full+=("$cpu")
  measure 1/20 --no-cache
  part+=("$cpu")
done
median() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
echo "median cpu: full=$(median "${full[@]}")s shard_1_of_20=$(median "${part[@]}")s ratio=$(echo "scale=2; $(median "${part[@]}") / $(median "${full[@]}")" | bc)"
