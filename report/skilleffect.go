package report

import (
	"fmt"
	"strings"

	"github.com/skillgate/skillgate/results"
)

// The skill's effect per eval (uplift mode, or skill-creator's with_skill / without_skill runs
// imported): each task's pass rate with the skill and without it, and the difference, always
// named skill − baseline, with its 95% interval (results.SkillImpact).

// points is a difference of rates in percentage points, signed.
func points(x float64) string {
	s := fmt.Sprintf("%+.0f pp", x*100)
	if s == "+0 pp" || s == "-0 pp" {
		return "±0 pp"
	}
	return strings.Replace(s, "-", "−", 1)
}

// deltaCI is a task's interval of the effect: as recorded, else (results written before it was)
// from both runs' trials.
func deltaCI(r *results.SuiteResult, t *results.TaskDigest) *results.Interval {
	if t.SkillImpact().DeltaCI != nil || r.BaselineOutcome == nil || !t.HasStats() {
		return t.SkillImpact().DeltaCI
	}
	for _, b := range r.BaselineOutcome.Tasks {
		if b.ID == t.ID() && b.Stats != nil {
			f := t.Figures()
			ci := results.DiffInterval(float64(f.PassedTrials), float64(f.Trials), float64(b.Stats.PassedTrials), float64(b.Stats.Trials))
			return &ci
		}
	}
	return nil
}

// effects are the tasks with a skill impact, and the ones whose interval lies wholly above or
// below zero.
func (s *Suite) effects() (tasks []*results.TaskDigest, helped, hurt []string) {
	l := s.tasks()
	for i := range l.digests {
		t := &l.digests[i]
		imp := t.SkillImpact()
		if imp == nil {
			continue
		}
		tasks = append(tasks, t)
		if ci := deltaCI(s.Result, t); ci != nil && ci.Lower > 0 {
			helped = append(helped, t.ID())
		} else if ci != nil && ci.Upper < 0 {
			hurt = append(hurt, t.ID())
		}
	}
	return tasks, helped, hurt
}

// skillEffectLine is the terminal's one line on the skill's effect ("" without uplift data).
func (s *Suite) skillEffectLine() string {
	tasks, helped, hurt := s.effects()
	if len(tasks) == 0 {
		return ""
	}
	var sum float64
	for _, t := range tasks {
		sum += t.SkillImpact().Delta
	}
	line := fmt.Sprintf("skill effect per eval (skill − baseline): mean pass rate %s over %s", points(sum/float64(len(tasks))), plural(len(tasks), "eval"))
	if len(helped) > 0 {
		line += "; clearly helps: " + strings.Join(helped, ", ")
	}
	if len(hurt) > 0 {
		line += "; clearly hurts: " + strings.Join(hurt, ", ")
	}
	return line
}

// skillEffectSection is the markdown table of the skill's effect per eval; nil without uplift data.
func (s *Suite) skillEffectSection() *mdSection {
	tasks, _, _ := s.effects()
	if len(tasks) == 0 {
		return nil
	}
	var rows []string
	for _, t := range tasks {
		imp := t.SkillImpact()
		ci := "—"
		if i := deltaCI(s.Result, t); i != nil {
			ci = points(i.Lower) + " to " + points(i.Upper)
		}
		rows = append(rows, fmt.Sprintf("| %s | %.0f%% | %.0f%% | %s | %s | %+.2f |\n", mdCode(t.ID(), 60),
			imp.PassRateWithSkills*100, imp.PassRateBaseline*100, points(imp.Delta), ci, imp.ScoreDelta))
	}
	head := "#### The skill's effect per eval (skill − baseline)\n\n" +
		"Each eval ran with the skill and without it (the baseline); a difference whose interval excludes zero is clear.\n\n" +
		"| Eval | Pass rate with skill | Baseline | Δ skill − baseline | 95% CI | Δ score |\n|---|---:|---:|---:|---|---:|\n"
	return &mdSection{priority: 6, head: head, items: rows, tail: "\n", what: "evals", moreNote: "- … and %d more\n"}
}
