// An ES module grader (seed 003): export grade; logging must not corrupt the result.
export const grade = async ({ input, output, metadata }) => {
  console.log('grading', metadata.task_id)
  const pass = output.includes('hello') && input.length > 0
  return { pass, score: pass ? 1 : 0, reasoning: pass ? 'says hello' : 'no hello' }
}
