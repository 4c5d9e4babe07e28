// A CommonJS grader module.
module.exports = {
  grade: (ctx) => ({ score: ctx.output.length > 3 ? 1 : 0, passed: ctx.output.length > 3, feedback: 'length ' + ctx.output.length }),
}
