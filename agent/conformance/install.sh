#!/usr/bin/env bash
# Installs the agent CLIs pinned in versions.txt into a cache folder (default: .cache/agent-clis at
# the repository root, git-ignored), for the conformance tests in this folder. Idempotent: a
# folder that already holds exactly these versions is left alone.
#   agent/conformance/install.sh [DIR]
#   agent/conformance/install.sh --latest [DIR]   # the newest release of each instead
#                                                 # (default DIR: .cache/agent-clis-latest)
# With --latest the folder is marked (.latest), and the tests accept whatever version it holds
# (they log it) instead of the pinned one.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
latest=""
if [ "${1:-}" = "--latest" ]; then
  latest=1
  shift
fi
if [ -n "$latest" ]; then
  dir="${1:-$root/.cache/agent-clis-latest}"
else
  dir="${1:-${SKILLGATE_AGENT_CLIS:-$root/.cache/agent-clis}}"
fi
specs=()
while read -r name version _; do
  case "$name" in ''|'#'*) continue ;; esac
  if [ -n "$latest" ]; then version=latest; fi
  specs+=("$name@$version")
done <"$here/versions.txt"
stamp="$dir/.installed"
want="$(printf '%s\n' "${specs[@]}")"
if [ -z "$latest" ] && [ -f "$stamp" ] && [ ! -f "$dir/.latest" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "agent CLIs already installed in $dir"
  exit 0
fi
mkdir -p "$dir"
rm -f "$dir/.latest"
npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "${specs[@]}"
printf '%s\n' "$want" >"$stamp"
if [ -n "$latest" ]; then
  touch "$dir/.latest"
fi
echo "agent CLIs installed in $dir:"
for s in "${specs[@]}"; do
  name="${s%@*}"
  echo "  $name@$(node -p "require('$dir/node_modules/$name/package.json').version" 2>/dev/null || echo "?")"
done
