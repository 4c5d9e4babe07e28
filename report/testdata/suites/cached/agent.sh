#!/bin/sh
# A scripted agent for the run-cache cases (report/testdata/README.md): it greets whoever the
# prompt names, reports token usage, and loads the greeter skill first when the prompt says
# "greet". Each line is one model turn; it pauses between turns like a real agent.
prompt="$1"
case "$prompt" in
*greet*)
	echo '{"event":"call","call":{"id":"c1","tool":"load_skill","input":{"skill":"greeter"}}}'
	sleep 1
	;;
esac
echo '{"event":"call","call":{"id":"c2","tool":"shell","input":{"cmd":"ls"}}}'
echo "{\"event\":\"say\",\"text\":\"Hello! You asked: $prompt\"}"
echo '{"event":"usage","tokens":{"in":1200,"out":80,"cached":300}}'
echo '{"event":"done","answer":"Hello!"}'
