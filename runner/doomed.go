package runner

import (
	"fmt"

	"github.com/skillgate/skillgate/graders"
)

// Doomed lists what a valid suite will fail at when it runs, one line each, from the warnings
// that leave something unable to pass: a task whose input file is missing or whose grader cannot
// grade (an unknown type, no judge endpoint: every run it grades errors); a task whose skill
// folder is missing under a real agent; a metric whose threshold no value can reach (80 for a
// rate). `skillgate validate` says "valid, but N tasks will error when run: …".
func Doomed(p *Prepared) (tasks, other []string) {
	s := p.Suite
	realAgent := s.Config.Executor != "mock" && s.Config.Executor != "replay"
	for _, t := range s.Tasks {
		if t.Unvalidated {
			continue
		}
		why := missingInput(t)
		if why == "" && realAgent && len(s.Config.MissingSkillDirectories) > 0 {
			why = fmt.Sprintf("skill directory %s does not exist", s.Config.MissingSkillDirectories[0])
		}
		if why == "" {
			for _, def := range t.Graders {
				if f := graders.FailureOf(p.Graders.For(def)); f != "" {
					why = f
					break
				}
			}
		}
		if why != "" {
			tasks = append(tasks, fmt.Sprintf("%s/%s (%s)", s.Name, t.ID, why))
		}
	}
	for _, m := range s.Metrics {
		noData := len(m.Name) > 8 && m.Name[:8] == "trigger_" && s.TriggerTests == nil // gates nothing anyway
		if m.Enabled && m.Threshold > 1 && !noData {
			other = append(other, fmt.Sprintf("%s: metric %s can never pass (threshold %g; its value is at most 1)", s.Name, m.Name, m.Threshold))
		}
	}
	return tasks, other
}
