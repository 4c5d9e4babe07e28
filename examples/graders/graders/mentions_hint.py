#!/usr/bin/env python3
"""Passes when the agent's output mentions the task's hint (a CSV column).

Reads the grading context as JSON on stdin and prints the inline protocol's result
{pass, score, reasoning}. Try it alone:
  echo '{"output": "hello world", "hint": "world"}' | python3 graders/mentions_hint.py
"""
import json
import sys

data = json.load(sys.stdin)
output = (data.get("output") or "").lower()
hint = (data.get("hint") or "").lower()

passed = hint in output if hint else True
print(json.dumps({
    "pass": passed,
    "score": 1.0 if passed else 0.0,
    "reasoning": f"Output mentions {hint!r}" if passed else f"Output does not mention {hint!r}",
}))
