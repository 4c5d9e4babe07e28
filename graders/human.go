package graders

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func init() {
	Register(&Type{
		Name:    "human",
		Summary: "A person reviews the run: the result is pending (it neither passes nor fails the run) until a labels file gives its verdict.",
		Config:  newConfig[humanConfig],
		Compile: compileHuman,
	})
	Register(&Type{
		Name:    "human_calibration",
		Summary: "A person labels the run to calibrate an LLM grader: pending until labelled; the suite then reports agreement and Cohen's kappa between the labels and the judge.",
		Config:  newConfig[humanConfig],
		Compile: compileHuman,
	})
}

type humanConfig struct {
	Instructions    string   `yaml:"instructions"`
	Criteria        []string `yaml:"criteria"`
	CalibrateGrader string   `yaml:"calibrate_grader"`
}

type humanGrader struct {
	def    *spec.Grader
	cfg    humanConfig
	labels *Labels
}

func compileHuman(def *spec.Grader, env *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[humanConfig](def)
	if env == nil {
		env = &Env{}
	}
	if def.Type == "human_calibration" {
		if cfg.CalibrateGrader == "" {
			return nil, spec.Diagnostics{noChecks(def, "calibrate_grader")}
		}
		if d := checkCalibrated(def, cfg.CalibrateGrader, env.Suite); d != nil {
			return nil, spec.Diagnostics{*d}
		}
		if cfg.Instructions == "" {
			cfg.Instructions = fmt.Sprintf("Label this run pass or fail as you judge it; the labels measure how well the LLM grader %q agrees with a person.", cfg.CalibrateGrader)
		}
	}
	return &humanGrader{def: def, cfg: cfg, labels: env.Labels}, nil
}

// checkCalibrated checks that every task graded by a human_calibration grader also has the LLM
// grader it names.
func checkCalibrated(def *spec.Grader, name string, s *spec.Suite) *spec.Diagnostic {
	if s == nil {
		return nil
	}
	for _, t := range s.Tasks {
		uses := false
		var llm []string
		var target *spec.Grader
		for _, g := range t.Graders {
			uses = uses || g == def
			if g.Name == name {
				target = g
			}
			if spec.IsJudge(g.Type) {
				llm = append(llm, g.Name)
			}
		}
		if !uses {
			continue
		}
		sort.Strings(llm)
		available := "this task has no LLM grader (" + spec.JudgeTypeList() + ")"
		if len(llm) > 0 {
			available = "LLM graders of this task: " + strings.Join(llm, ", ")
		}
		if target == nil {
			fix := available
			if sg := spec.Suggest(name, llm); sg != "" {
				fix = fmt.Sprintf("did you mean %q? %s", sg, available)
			}
			d := spec.Errorf(def.ConfigAt("calibrate_grader"), "config.calibrate_grader", fix,
				"grader %q: calibrate_grader %q names no grader of task %q", def.Name, name, t.ID)
			return &d
		}
		if !spec.IsJudge(target.Type) {
			d := spec.Errorf(def.ConfigAt("calibrate_grader"), "config.calibrate_grader", available,
				"grader %q: calibrate_grader %q is a %s grader, not an LLM grader (%s)", def.Name, name, target.Type, spec.JudgeTypeList())
			return &d
		}
	}
	return nil
}

func (g *humanGrader) Grade(_ context.Context, in *Input) (*results.GraderResult, error) {
	details := map[string]any{
		"instructions": g.cfg.Instructions,
		"criteria":     orEmpty(g.cfg.Criteria),
	}
	if g.cfg.CalibrateGrader != "" {
		details["calibrate_grader"] = g.cfg.CalibrateGrader
	}
	var label *Label
	if in != nil && in.Task != nil {
		label = g.labels.For(in.Task.ID, in.Trial, g.def.Name)
	}
	if label == nil {
		feedback := "Awaiting human review"
		if g.cfg.Instructions != "" {
			feedback += ": " + g.cfg.Instructions
		}
		r := result(g.def, 0, false, feedback, details)
		r.Status = results.StatusPending
		return r, nil
	}
	details["human_passed"] = label.Passed
	details["human_score"] = label.Score
	details["note"] = label.Note
	details["label"] = label.Pos.String()
	verdict := "fail"
	if label.Passed {
		verdict = "pass"
	}
	feedback := fmt.Sprintf("Human label: %s (score %.2f)", verdict, label.Score)
	if label.Note != "" {
		feedback += ": " + label.Note
	}
	return result(g.def, label.Score, label.Passed, feedback, details), nil
}
