#!/bin/sh
# Answers every prompt with the prompt and invokes no skill: a should-trigger prompt fails.
echo "$1"
