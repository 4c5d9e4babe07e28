#!/usr/bin/env bash
# Installs the agent CLIs pinned in versions.txt into a cache folder (default: .cache/agent-clis at
# the repository root, git-ignored), for the conformance tests in this folder. Idempotent: a
# folder that already holds exactly these versions is left alone.
#   agent/conformance/install.sh [DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dir="${1:-${SKILLGATE_AGENT_CLIS:-$root/.cache/agent-clis}}"
specs=()
while read -r name version _; do
  case "$name" in ''|'#'*) continue ;; esac
  specs+=("$name@$version")
done <"$here/versions.txt"
stamp="$dir/.installed"
want="$(printf '%s\n' "${specs[@]}")"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "agent CLIs already installed in $dir"
  exit 0
fi
mkdir -p "$dir"
npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "${specs[@]}"
printf '%s\n' "$want" >"$stamp"
echo "agent CLIs installed in $dir:"
for s in "${specs[@]}"; do echo "  $s"; done
