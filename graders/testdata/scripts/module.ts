// A TypeScript grader module: types are stripped by node (22.6+), tsx or bun.
type GraderInput = { input: string; output: string; hint?: string }
type GraderResult = { pass: boolean; score: number; reasoning?: string }

export const grade = async ({ output }: GraderInput): Promise<GraderResult> => {
  const pass: boolean = output.includes('hello')
  return { pass, score: pass ? 1 : 0, reasoning: 'typescript' }
}
