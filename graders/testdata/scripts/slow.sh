#!/bin/sh
# Starts a child that would outlive the script, records its pid, then hangs.
sleep 60 &
echo $! > "$SKILLGATE_WORKSPACE_DIR/child.pid"
echo "starting" >&2
sleep 60
