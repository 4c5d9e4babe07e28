package pipeline

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/skillgate/skillgate/graders"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
	"github.com/skillgate/skillgate/spec"
)

// PairwiseOptions say how prompt-only evals are compared with the base branch's answers.
type PairwiseOptions struct {
	// Prepared are the suites that ran: their judge settings.
	Prepared []*runner.Prepared
	// Executor builds the agent CLI that judges under --judge agent.
	Executor runner.ExecutorOptions
	Pretty   bool
	// Log receives a line per comparison the judge could not make; nil: discarded.
	Log io.Writer
}

// ComparePairwise gives each prompt-only skill-creator eval a blind pairwise verdict against its
// baseline's answers (results.Pairwise: better, worse or tie), once the baselines are known: trial
// i against the base's trial i, the majority deciding. It needs a judge (the suite's endpoint, or
// the agent CLI with --judge agent) and real answers (not the mock's); without them the evals stay
// "not graded". A head given a verdict is written again to its results file.
func ComparePairwise(ctx context.Context, heads []Head, o PairwiseOptions) {
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	bySuite := map[string]*runner.Prepared{}
	for _, p := range o.Prepared {
		bySuite[p.Suite.Name] = p
	}
	for _, h := range heads {
		p := bySuite[h.Result.EvalName]
		if p == nil || p.Suite.Format != spec.FormatSkillCreator || h.Base == nil || h.Base.Result == nil || h.Result.Config.EngineType == "mock" {
			continue
		}
		pairs := pairwiseTasks(h.Result, h.Base.Result)
		if len(pairs) == 0 {
			continue
		}
		ask, judgeName, why := pairwiseJudge(p, o.Executor)
		if ask == nil {
			fmt.Fprintf(log, "skillgate: %s: %d prompt-only eval(s) not compared with the base branch: %s\n", h.Result.EvalName, len(pairs), why)
			continue
		}
		changed := false
		expected := map[string]string{}
		for _, t := range p.Suite.Tasks {
			expected[t.ID] = t.Description
		}
		for _, pr := range pairs {
			v, err := judgePair(ctx, ask, judgeName, h.Result.EvalName, expected[pr.head.ID], pr)
			if err != nil {
				fmt.Fprintf(log, "skillgate: %s: task %s: the pairwise judge failed: %v\n", h.Result.EvalName, pr.head.ID, err)
				continue
			}
			if v != nil {
				pr.head.Pairwise, changed = v, true
			}
		}
		if changed && h.File != "" {
			if err := results.WriteFileAs(h.File, h.Result, o.Pretty); err != nil {
				fmt.Fprintf(log, "skillgate: writing results: %v\n", err)
			}
		}
	}
}

type taskPair struct{ head, base *results.TaskResult }

// pairwiseTasks pairs each prompt-only eval of head (no check in any run) with its baseline task.
// An eval judged already keeps its verdict: a shard judges its own evals, and the merge job
// judges only what no shard could (no baseline there).
func pairwiseTasks(head, base *results.SuiteResult) []taskPair {
	var promptOnly []*results.TaskResult
	wanted := map[string]bool{}
	for _, t := range head.Tasks {
		if !t.GradedByChecks || t.Pairwise != nil || len(t.Runs) == 0 {
			continue
		}
		checked := false
		for _, r := range t.Runs {
			checked = checked || len(r.Validations) > 0
		}
		if !checked {
			promptOnly = append(promptOnly, t)
			wanted[t.ID] = true
		}
	}
	if len(promptOnly) == 0 {
		return nil
	}
	// Only the base's answers to these evals are kept (a baseline read in passes gives its
	// tasks one by one; one that can no longer be read pairs the evals read so far).
	byID := map[string]*results.TaskResult{}
	base.EachTask(func(t *results.TaskResult) error {
		if wanted[t.ID] && len(t.Runs) > 0 {
			byID[t.ID] = t
		}
		return nil
	})
	var out []taskPair
	for _, t := range promptOnly {
		if b := byID[t.ID]; b != nil {
			out = append(out, taskPair{t, b})
		}
	}
	return out
}

// pairwiseJudge is the suite's judge for the comparison.
func pairwiseJudge(p *runner.Prepared, ex runner.ExecutorOptions) (ask graders.Ask, name, why string) {
	if graders.JudgeMode(p.Judge) == graders.JudgeAgent {
		ask, why := runner.AgentAsk(p.Suite, ex)
		return ask, graders.JudgeAgent, why
	}
	return graders.EndpointAsk(p.Suite, p.Judge)
}

// judgePair compares the trials both sides answered without an error; nil when there is none.
func judgePair(ctx context.Context, ask graders.Ask, judgeName, suite, expected string, pr taskPair) (*results.Pairwise, error) {
	var out *results.Pairwise
	reasons := map[string]string{} // the first reason given for each verdict
	for i := 0; i < len(pr.head.Runs) && i < len(pr.base.Runs); i++ {
		h, b := pr.head.Runs[i], pr.base.Runs[i]
		if h.Status == results.StatusError || b.Status == results.StatusError {
			continue
		}
		v, err := graders.ComparePairwise(ctx, ask, judgeName, graders.PairwiseInput{
			Key: suite + "\x00" + pr.head.ID + "\x00" + strconv.Itoa(i), Prompt: pr.head.Prompt, Expected: expected, Head: h.FinalOutput, Base: b.FinalOutput,
		})
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = &results.Pairwise{Judge: v.Judge, HeadFirst: v.HeadFirst}
		}
		switch v.Verdict {
		case results.PairwiseBetter:
			out.Better++
		case results.PairwiseWorse:
			out.Worse++
		default:
			out.Tie++
		}
		if _, ok := reasons[v.Verdict]; !ok {
			reasons[v.Verdict] = v.Reason
		}
	}
	if out == nil {
		return nil, nil
	}
	switch {
	case out.Better > out.Worse:
		out.Verdict = results.PairwiseBetter
	case out.Worse > out.Better:
		out.Verdict = results.PairwiseWorse
	default:
		out.Verdict = results.PairwiseTie
	}
	out.Reason = reasons[out.Verdict]
	return out, nil
}
