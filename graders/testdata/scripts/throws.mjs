export function grade() {
  throw new Error('grader bug: cannot read property x')
}
