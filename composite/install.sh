#!/usr/bin/env bash
# Installs skillgate for the composite action on Linux and macOS runners: the release archive for
# this runner and the release's checksums.txt are downloaded, the archive is verified against
# its SHA-256 before it is unpacked, and the binary's folder goes on GITHUB_PATH. SKILLGATE_VERSION
# "dev" builds from the action's own checkout instead (needs Go on the runner).
#
# Environment: SKILLGATE_VERSION (vX.Y.Z or dev), SKILLGATE_REPOSITORY (owner/name of the action;
# default skillgate/skillgate), GITHUB_SERVER_URL, RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP,
# GITHUB_PATH, GITHUB_ACTION_PATH.
set -euo pipefail

version="${SKILLGATE_VERSION:-dev}"
repo="${SKILLGATE_REPOSITORY:-}"
[ -n "$repo" ] || repo="skillgate/skillgate"
server="${GITHUB_SERVER_URL:-https://github.com}"
dest="${RUNNER_TEMP:-/tmp}/skillgate-${version}"
mkdir -p "$dest"

if [ "$version" = dev ]; then
  src="$(cd "$GITHUB_ACTION_PATH/.." && pwd)"
  if ! command -v go >/dev/null; then
    echo "::error title=skillgate::version dev builds skillgate from $src and needs Go: add actions/setup-go before this step, or set version to a release (e.g. v1.2.3)"
    exit 2
  fi
  (cd "$src" && CGO_ENABLED=0 go build -trimpath -o "$dest/skillgate" ./cmd/skillgate)
  echo "$dest" >> "$GITHUB_PATH"
  "$dest/skillgate" version
  exit 0
fi

case "$version" in
  v[0-9]*.[0-9]*.[0-9]*) ;;
  *) echo "::error title=skillgate::version $version is not a release (vX.Y.Z) or dev"; exit 2 ;;
esac
case "${RUNNER_OS:-$(uname -s)}" in
  Linux) os=linux ;;
  macOS | Darwin) os=darwin ;;
  *) echo "::error title=skillgate::install.sh serves Linux and macOS runners, not ${RUNNER_OS:-$(uname -s)}"; exit 2 ;;
esac
case "${RUNNER_ARCH:-$(uname -m)}" in
  X64 | x86_64 | amd64) arch=amd64 ;;
  ARM64 | arm64 | aarch64) arch=arm64 ;;
  *) echo "::error title=skillgate::no skillgate release for the architecture ${RUNNER_ARCH:-$(uname -m)}"; exit 2 ;;
esac

archive="skillgate_${version}_${os}_${arch}.tar.gz"
base="$server/$repo/releases/download/$version"
curl --fail --silent --show-error --location --retry 3 --output "$dest/$archive" "$base/$archive"
curl --fail --silent --show-error --location --retry 3 --output "$dest/checksums.txt" "$base/checksums.txt"

want="$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$dest/checksums.txt")"
if [ -z "$want" ]; then
  echo "::error title=skillgate::checksums.txt of $version lists no $archive"
  exit 1
fi
if command -v sha256sum >/dev/null; then
  got="$(sha256sum "$dest/$archive" | awk '{ print $1 }')"
else
  got="$(shasum -a 256 "$dest/$archive" | awk '{ print $1 }')"
fi
if [ "$got" != "$want" ]; then
  echo "::error title=skillgate::$archive does not match checksums.txt (sha256 $got, want $want): not installed"
  exit 1
fi
tar -xzf "$dest/$archive" -C "$dest"
bin="$dest/skillgate_${version}_${os}_${arch}"
echo "$bin" >> "$GITHUB_PATH"
"$bin/skillgate" version
