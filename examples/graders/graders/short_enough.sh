#!/bin/sh
# Program grader: the agent's output arrives on stdin; exit 0 passes. Usage: short_enough.sh MAX_WORDS
words=$(wc -w | tr -d ' ')
if [ "$words" -le "$1" ]; then
  echo "$words words (at most $1)"
  exit 0
fi
echo "$words words, more than $1"
exit 1
