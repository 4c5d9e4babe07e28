# The start every bench script shares (source it after reading the arguments): $root is this
# tree, $work a scratch folder removed on exit, and build_skillgate puts this tree's CLI at
# $work/skillgate, built as the released binaries are (static, no cgo: the dynamic loader alone
# is a few milliseconds of a small run), or copies the binary SKILLGATE names.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

build_skillgate() {
  if [ -n "${SKILLGATE:-}" ]; then
    cp "$SKILLGATE" "$work/skillgate"
  else
    CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$work/skillgate" "$root/cmd/skillgate"
  fi
}
