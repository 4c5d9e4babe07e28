# The start every bench script shares (source it after reading the arguments): $root is this
# tree, $work a scratch folder removed on exit, and build_skillgate puts this tree's CLI at
# $work/skillgate.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

build_skillgate() { go build -o "$work/skillgate" "$root/cmd/skillgate"; }
