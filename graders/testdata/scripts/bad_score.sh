#!/bin/sh
cat > /dev/null
echo '{"score": 2, "passed": "yes"}'
