# The start every bench script shares (source it after reading the arguments): $root is this
# tree, $work a scratch folder removed on exit, and build_skillgate puts this tree's CLI at
# $work/skillgate (or copies the binary SKILLGATE names, to measure another version).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

build_skillgate() {
  if [ -n "${SKILLGATE:-}" ]; then
    cp "$SKILLGATE" "$work/skillgate"
  else
    go build -o "$work/skillgate" "$root/cmd/skillgate"
  fi
}
