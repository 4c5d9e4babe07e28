// Package benchsuite writes synthetic eval suites for benchmarks: N task files, each with a
// prompt, one input file and two text graders, run by the mock executor.
package benchsuite

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write generates the suite under dir.
func Write(dir string, tasks, trials int) error {
	if err := os.MkdirAll(filepath.Join(dir, "tasks"), 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "fixtures"), 0o755); err != nil {
		return err
	}
	eval := fmt.Sprintf(`name: bench
skill: bench-skill
config:
  executor: mock
  trials_per_task: %d
  parallel: true
  max_workers: 4
tasks:
  - tasks/*.yaml
`, trials)
	if err := os.WriteFile(filepath.Join(dir, "eval.yaml"), []byte(eval), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "fixtures", "input.txt"), []byte("some input\n"), 0o644); err != nil {
		return err
	}
	for i := 0; i < tasks; i++ {
		task := fmt.Sprintf(`id: task-%05d
name: Task %d
tags: [bench, group-%d]
inputs:
  prompt: "Explain item %d of the benchmark in one sentence."
  files:
    - path: input.txt
graders:
  - type: text
    name: answered
    config:
      contains: ["mock response", "item %d"]
      not_contains: ["error"]
  - type: text
    name: shape
    config:
      regex_match: ["^Mock response for: .+"]
      regex_not_match: ["(?i)traceback"]
`, i, i, i%10, i, i)
		if err := os.WriteFile(filepath.Join(dir, "tasks", fmt.Sprintf("task-%05d.yaml", i)), []byte(task), 0o644); err != nil {
			return err
		}
	}
	return nil
}
