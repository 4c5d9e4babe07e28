#!/bin/sh
# Regenerates the results files of report/testdata/cases by running skillgate on the suites of
# report/testdata/suites (see report/testdata/README.md), then normalizes the fields that change
# from run to run. Run from the repository root: sh report/testdata/cases/generate.sh
# Then `go test ./report -run Golden -update` rewrites the golden reports.
set -eu
cases=report/testdata/cases
suites=report/testdata/suites
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/skillgate" ./cmd/skillgate
sg="$tmp/skillgate"
# No judge endpoint reaches the runs: the LLM graders error (or are deferred in collect mode).
unset GITHUB_TOKEN SKILLGATE_JUDGE_BASE_URL SKILLGATE_JUDGE_API_KEY SKILLGATE_JUDGE_MODEL || true

# run NAME ARGS...: one suite, its results copied to cases/NAME.json. Exit code 1 (a failed
# gate) is expected for most cases.
run() {
	name=$1
	shift
	"$sg" run --quiet --out "$tmp/$name" "$@" >/dev/null 2>&1 || [ $? -eq 1 ]
	cp "$tmp/$name"/results/*.json "$cases/$name.json"
}

run hello examples/hello
(cd $suites/checkout && "$sg" run . --quiet --tags core --from runs --out "$tmp/checkout" >/dev/null 2>&1 || [ $? -eq 1 ])
cp "$tmp/checkout/results/checkout.json" $cases/checkout.json
run pdf-tools $suites/pdf-tools
run sql-review $suites/sql-review
run release-notes $suites/release-notes
for v in good worse noisy; do
	(cd $suites/api-service && "$sg" run . --quiet --from runs/$v --out "$tmp/api-$v" >/dev/null 2>&1 || [ $? -eq 1 ])
	cp "$tmp/api-$v/results/api-service.json" $cases/api-service-$v.json
done

for v in good worse red red-newfail; do
	(cd $suites/docs-bot && "$sg" run . --quiet --from runs/$v --out "$tmp/docs-$v" >/dev/null 2>&1 || [ $? -eq 1 ])
	cp "$tmp/docs-$v/results/docs-bot.json" $cases/docs-bot-$v.json
done
# The same suite on pull requests that delete a failing task and that change a grader.
(cd $suites/docs-bot-removed && "$sg" run . --quiet --from ../docs-bot/runs/red --out "$tmp/docs-removed" >/dev/null 2>&1 || [ $? -eq 1 ])
cp "$tmp/docs-removed/results/docs-bot.json" $cases/docs-bot-removed.json
(cd $suites/docs-bot-grader && "$sg" run . --quiet --from ../docs-bot/runs/good --out "$tmp/docs-grader" >/dev/null 2>&1 || [ $? -eq 1 ])
cp "$tmp/docs-grader/results/docs-bot.json" $cases/docs-bot-grader.json
# cached, cached-graders: a scripted command agent; the second suite is the first with one
# grader changed and shares its run cache, so it executes no agent run.
"$sg" run --quiet --out "$tmp/cached" --run-cache-dir "$tmp/runs" $suites/cached >/dev/null 2>&1
cp "$tmp/cached/results/cached.json" $cases/cached.json
"$sg" run --quiet --out "$tmp/cached-graders" --run-cache-dir "$tmp/runs" $suites/cached-graders >/dev/null 2>&1 || [ $? -eq 1 ]
cp "$tmp/cached-graders/results/cached.json" $cases/cached-graders.json

# nightly: interrupted (SIGINT) while the last task's before_task hook sleeps.
"$sg" run --quiet --out "$tmp/nightly" $suites/nightly >/dev/null 2>&1 &
pid=$!
sleep 4
kill -INT $pid
wait $pid || true
cp "$tmp/nightly/results/nightly.json" $cases/nightly.json

# release-notes-collect: the Action's collect mode (a pull request from a fork), which defers the
# LLM judge to the report workflow.
head=$(git rev-parse HEAD)
cat >"$tmp/event.json" <<JSON
{"number": 7, "repository": {"full_name": "acme/shop", "default_branch": "main"},
 "pull_request": {"number": 7,
  "head": {"sha": "$head", "ref": "notes", "repo": {"full_name": "contributor/shop"}},
  "base": {"sha": "$head", "ref": "main", "repo": {"full_name": "acme/shop"}}}}
JSON
collect=.skillgate-golden-collect
env -i PATH="$PATH" HOME="$HOME" GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$tmp/event.json" \
	GITHUB_REPOSITORY=acme/shop GITHUB_WORKSPACE="$PWD" GITHUB_SHA="$head" \
	INPUT_SUITES=$suites/release-notes INPUT_MODE=collect INPUT_RESULTS_DIR=$collect \
	INPUT_CHANGED_ONLY=false INPUT_COMMENT=never INPUT_CHECK_RUN=false \
	"$sg" action >/dev/null 2>&1
cp $collect/results/release-notes.json $cases/release-notes-collect.json
rm -rf $collect

# verdicts: six base runs of a suite at one trial per task (the baseline, verdicts-base-6, and
# five earlier runs pooled with it), the pull request's head with its confirmation trials, and a
# head that fixes the stubborn tasks (report/testdata/README.md).
state=$(mktemp -d)
bases=""
for k in 1 2 3 4 5 6; do
	VERDICTS_SIDE=base VERDICTS_STATE=$state "$sg" run --quiet --no-cache --out "$tmp/vb$k" $suites/verdicts >/dev/null 2>&1 || [ $? -eq 1 ]
	cp "$tmp/vb$k/results/verdicts.json" $cases/verdicts-base-$k.json
	bases="$bases --baseline $tmp/vb$k"
done
for side in head fixed; do
	VERDICTS_SIDE=$side VERDICTS_STATE=$state "$sg" run --quiet --no-cache --out "$tmp/v$side" $bases $suites/verdicts >/dev/null 2>&1 || [ $? -eq 1 ]
	cp "$tmp/v$side/results/verdicts.json" $cases/verdicts-$side.json
done
rm -rf "$state"

go run ./$cases/normalize $cases/*.json
