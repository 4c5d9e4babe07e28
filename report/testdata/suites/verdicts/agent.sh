#!/bin/sh
# The scripted agent of the verdicts suite (eval.yaml says what each side does). Deterministic:
# the same side and count give the same answer.
task=$(printf '%s' "$1" | sed -n 's/^Task \([a-z]*\):.*/\1/p')
state=${VERDICTS_STATE:-/tmp}
count_file="$state/$VERDICTS_SIDE-$task"
n=$(cat "$count_file" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" >"$count_file"
ok() { echo "OK: done"; exit 0; }
fail() { echo "FAIL: could not do it"; exit 0; }
case "$VERDICTS_SIDE/$task" in
*/steady) ok ;;
base/broken) ok ;;
head/broken) fail ;;                        # broken by the change: fails every time
base/noise) ok ;;
head/noise) [ "$n" -eq 1 ] && fail || ok ;; # unlucky once, then passes again
base/coinflip) [ $((n % 2)) -eq 0 ] && ok || fail ;; # passes every other run
head/coinflip) fail ;;
*/stubborn) [ "$VERDICTS_SIDE" = fixed ] && ok || fail ;; # fails until the fix
fixed/*) ok ;;
esac
fail
