// A Vally `program` grader written for skillgate's tests: it reads the two variables Vally sets
// (EVALUATE_WORKSPACE, EVALUATE_GRADER_INPUT) and prints a GraderResult on stdout.
const fs = require("fs");
const path = require("path");

const workspace = process.env.EVALUATE_WORKSPACE;
const inputPath = process.env.EVALUATE_GRADER_INPUT;
if (!workspace || !inputPath) {
  process.stderr.write("EVALUATE_WORKSPACE / EVALUATE_GRADER_INPUT not set\n");
  process.exit(2);
}
const input = JSON.parse(fs.readFileSync(inputPath, "utf-8"));
const checks = [];
const summary = path.join(workspace, "notes-summary.md");
const exists = fs.existsSync(summary);
checks.push({ name: "summary-file-exists", passed: exists });
let total = -1;
if (exists) {
  const lines = fs.readFileSync(summary, "utf-8").split(/\r?\n/).filter((l) => l.trim() !== "");
  const m = /^Total notes:\s*(\d+)\s*$/.exec(lines[0] || "");
  total = m ? Number(m[1]) : -1;
  const bullets = lines.slice(1).filter((l) => /^-\s+\S/.test(l)).length;
  checks.push({ name: "bullet-count-matches-total", passed: bullets === total });
}
const calls = (input.trajectory && input.trajectory.metrics && input.trajectory.metrics.toolCallCount) || 0;
checks.push({ name: "agent-used-tools", passed: calls > 0 });
checks.push({ name: "stimulus-named", passed: input.stimulus && input.stimulus.name === "fixture-notes-summary" });
const passed = checks.filter((c) => c.passed).length;
process.stdout.write(JSON.stringify({
  name: "fixture-summary-check",
  kind: "code",
  passed: passed === checks.length,
  score: passed / checks.length,
  evidence: `${passed} of ${checks.length} checks passed`,
  details: checks,
}));
