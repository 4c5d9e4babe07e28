#!/bin/sh
# Fails when the agent left scratch files in its workspace (*.tmp, *.orig, *.rej, .DS_Store).
# The grading context arrives on stdin (unused here); the workspace is $SKILLGATE_WORKSPACE_DIR.
cat > /dev/null
leftovers=$(find "$SKILLGATE_WORKSPACE_DIR" -type f \( -name '*.tmp' -o -name '*.orig' -o -name '*.rej' -o -name '.DS_Store' \) | wc -l | tr -d ' ')
if [ "$leftovers" -eq 0 ]; then
  echo '{"score": 1, "passed": true, "message": "No scratch files left behind", "details": {"leftovers": 0}}'
else
  echo "{\"score\": 0, \"passed\": false, \"message\": \"$leftovers scratch file(s) left behind\", \"details\": {\"leftovers\": $leftovers}}"
fi
