// A grader module (seed 003): skillgate calls grade() with the grading context and reads the
// returned {pass, score, reasoning}. Types are stripped by Node.js 22.6+ (or tsx, or bun).

type Step = { type: string; name?: string; status?: string }
type GraderInput = {
  input: string
  output: string
  hint?: string
  trajectory?: Step[]
  metadata?: Record<string, unknown>
}
type GraderResult = { pass: boolean; score: number; reasoning: string }

export const grade = async ({ output, hint, trajectory, metadata }: GraderInput): Promise<GraderResult> => {
  let score = 0
  const reasons: string[] = []

  // Criterion 1 (0.4): the output contains the expected content.
  if (!hint || output.toLowerCase().includes(hint.toLowerCase())) {
    score += 0.4
    reasons.push('mentions the hint')
  }
  // Criterion 2 (0.3): no tool call failed.
  const calls = (trajectory ?? []).filter((s) => s.type === 'tool_call')
  if (!calls.some((s) => s.status === 'error')) {
    score += 0.3
    reasons.push('no tool errors')
  }
  // Criterion 3 (0.3): efficient; greetings need no tools at all.
  const budget = metadata?.category === 'greeting' ? 0 : 5
  if (calls.length <= budget) {
    score += 0.3
    reasons.push(`efficient (${calls.length} tool calls)`)
  }
  score = Math.round(score * 100) / 100
  return { pass: score >= 0.7, score, reasoning: reasons.join('; ') || 'failed every criterion' }
}
