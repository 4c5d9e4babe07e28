#!/usr/bin/env python3
# waza's script grader shape: {score, passed, message, details}.
import json
import sys

ctx = json.load(sys.stdin)
ok = "hello" in ctx["output"].lower()
print("debug line before the result", file=sys.stderr)
print(json.dumps({
    "score": 1.0 if ok else 0.25,
    "passed": ok,
    "message": "greets" if ok else "no greeting",
    "details": {"task": ctx["task"]["id"], "workspace": ctx["workspace_dir"] != "", "tools": [c["name"] for c in ctx["tool_calls"]]},
}))
