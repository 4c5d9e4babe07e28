#!/bin/sh
cat > /dev/null
echo "Traceback: something broke" >&2
exit 1
