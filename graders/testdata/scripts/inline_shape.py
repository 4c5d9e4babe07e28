#!/usr/bin/env python3
# The inline protocol's shape (seed 003): {pass, score, reasoning}.
import json
import os
import sys

data = json.load(sys.stdin)
output = data.get("output", "").lower()
hint = (data.get("hint") or "").lower()
pass_result = hint in output if hint else True
errors = [s for s in data.get("trajectory", []) if s.get("type") == "tool_call" and s.get("status") == "error"]
print(json.dumps({
    "pass": pass_result and not errors,
    "score": (1.0 if pass_result else 0.0) if not errors else 0.5,
    "reasoning": "Contains hint" if pass_result else "Missing hint",
    "outcome": {"cwd_is_suite": os.path.isfile("eval.yaml"), "env": os.environ.get("SKILLGATE_WORKSPACE_DIR") == os.environ.get("WAZA_WORKSPACE_DIR")},
}))
