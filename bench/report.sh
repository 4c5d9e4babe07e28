#!/usr/bin/env bash
# Measures the commands that read results files on very large ones (docs/performance.md,
# "Reports on very large results files"): for each size, bench/genresults writes a results file
# of TASKS tasks × 1 trial (two text graders per run, 5% failing), a second one with other
# failures, and the same run as 2 shards; then `skillgate report FILE`, `skillgate compare BASE
# HEAD` and `skillgate merge SHARDS` are timed with /usr/bin/time: wall, CPU (user + system) and
# peak RSS.
#   bench/report.sh [TASKS...]      (defaults: 100000 1000000)
# COMMANDS="report compare merge" chooses the commands; SKILLGATE=path measures that binary
# instead of building this tree (to compare two versions). Each file of a million tasks is
# 1.3 GB and generating one takes about 5 GB of memory; the reports of one take 2.1 GB of disk.
set -euo pipefail
sizes=("$@")
if [ ${#sizes[@]} -eq 0 ]; then
  sizes=(100000 1000000)
fi
commands=${COMMANDS:-report compare merge}
source "$(dirname "$0")/lib.sh"

build_skillgate
go build -o "$work/genresults" "$root/bench/genresults"

# measure NAME TASKS ARGS...: one command; prints its figures.
measure() {
  local name=$1 tasks=$2 status=0 wall user sys rss
  shift 2
  rm -rf "$work/out"
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" \
    "$work/skillgate" "$@" >"$work/stdout" 2>"$work/stderr" || status=$?
  read -r wall user sys rss < <(tail -n 1 "$work/time") # after "Command exited with …"
  # exit 1 is fail-on's verdict (5% of the tasks fail); 2 is an error.
  echo "command=$name tasks=$tasks exit=$status wall=${wall}s cpu=$(echo "$user + $sys" | bc)s peak_rss=$((rss / 1024))MB cores=$(nproc) load=$(cut -d' ' -f1 /proc/loadavg)"
  if [ "$status" -gt 1 ]; then
    tail -n 20 "$work/stderr" >&2
    exit 1
  fi
}

for tasks in "${sizes[@]}"; do
  for cmd in $commands; do
    case $cmd in
    report)
      "$work/genresults" -tasks "$tasks" -out "$work/head.json"
      echo "results file: $(($(wc -c <"$work/head.json") / 1024 / 1024)) MB"
      measure report "$tasks" report "$work/head.json" --out "$work/out"
      ;;
    compare)
      [ -f "$work/head.json" ] || "$work/genresults" -tasks "$tasks" -out "$work/head.json"
      "$work/genresults" -tasks "$tasks" -seed 2 -out "$work/base.json"
      measure compare "$tasks" compare "$work/base.json" "$work/head.json"
      rm -f "$work/base.json"
      ;;
    merge)
      rm -f "$work/head.json"
      "$work/genresults" -tasks "$tasks" -shards 2 -out "$work/shards"
      measure merge "$tasks" merge "$work/shards" --out "$work/out"
      rm -rf "$work/shards"
      ;;
    *)
      echo "unknown command $cmd (report, compare or merge)" >&2
      exit 2
      ;;
    esac
  done
  rm -rf "$work/head.json" "$work/out"
done
