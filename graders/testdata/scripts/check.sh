#!/bin/sh
# A shell grader: reads the context, checks a workspace file.
cat > /dev/null
if [ -f "$SKILLGATE_WORKSPACE_DIR/src/app.py" ]; then
  echo '{"pass": true, "score": 1, "reasoning": "app.py exists"}'
else
  echo '{"pass": false, "score": 0, "reasoning": "app.py missing"}'
fi
