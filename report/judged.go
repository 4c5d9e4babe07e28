package report

import (
	"fmt"

	"github.com/skillgate/skillgate/results"
)

// judgeLines are the terminal lines about checks no judge graded (skill-creator's judged checks
// under the mock executor or without a judge): how many, and why, once.
func judgeLines(r *results.SuiteResult) []string {
	n, why := 0, ""
	for _, t := range r.Tasks {
		for _, run := range t.Runs {
			for _, v := range run.Validations {
				if v.AwaitsJudge() {
					n++
					if why == "" {
						why = v.Feedback
					}
				}
			}
		}
	}
	if n == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s awaiting a judge, not graded: %s", plural(n, "check"), why)}
}
