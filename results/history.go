package results

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"sort"
	"strconv"
	"time"
)

// Remembering the base (docs/statistics.md#remembering-the-base): a suite that runs one trial
// per task says little about a task from one base run, but the base branch runs it again on
// every push. A task whose inputs did not change between those runs has the same pass
// probability in each, so their trials can be pooled. A BaseRecord is what pooling keeps of one
// earlier base run: per task and trigger prompt, the key of its inputs and its trial counts —
// a few bytes each, so many runs can be remembered without holding their results.

// BaseRecord is one earlier run of a suite on the base branch, reduced to trial counts.
type BaseRecord struct {
	EvalID    string    `json:"eval_id,omitempty"`
	Commit    string    `json:"commit,omitempty"`
	Timestamp time.Time `json:"timestamp"`
	// Tasks and Prompts are keyed by task id and trigger prompt id.
	Tasks   map[string]TrialCounts `json:"tasks,omitempty"`
	Prompts map[string]TrialCounts `json:"prompts,omitempty"`
}

// TrialCounts are the planned trials of one task or trigger prompt in one run (confirmation
// trials are left out: they were sampled because the task failed).
type TrialCounts struct {
	// Key is PoolKey's: trials pool only between runs with equal, non-empty keys.
	Key    string `json:"key"`
	Trials int    `json:"trials"`
	Passed int    `json:"passed"`
	// ScoreSum is the sum of the trials' scores (tasks only).
	ScoreSum float64 `json:"score_sum,omitempty"`
}

// Same reports whether r records the run s (they share an eval id and a timestamp), so a
// baseline found twice — as the baseline and among the earlier runs — is counted once.
func (r *BaseRecord) Same(s *SuiteResult) bool {
	return r != nil && s != nil && r.EvalID == s.EvalID && r.Timestamp.Equal(s.Timestamp)
}

// RecordOf reduces a results file to what pooling keeps of it.
func RecordOf(s *SuiteResult) *BaseRecord {
	if s == nil {
		return nil
	}
	rec := &BaseRecord{EvalID: s.EvalID, Timestamp: s.Timestamp, Tasks: map[string]TrialCounts{}}
	if s.Provenance != nil {
		rec.Commit = s.Provenance.GitCommit
	}
	s.eachTask(func(t *TaskResult) error {
		if len(t.Runs) == 0 || t.ID == "" {
			return nil
		}
		c := TrialCounts{Key: PoolKey(s, t), Trials: len(t.Runs)}
		for _, r := range t.Runs {
			if r == nil {
				continue
			}
			if r.Status == StatusPassed {
				c.Passed++
			}
			if !math.IsNaN(r.Score) && !math.IsInf(r.Score, 0) {
				c.ScoreSum += r.Score
			}
		}
		rec.Tasks[t.ID] = c
		return nil
	})
	for id, c := range PromptCounts(s, s.TriggerResults) {
		if rec.Prompts == nil {
			rec.Prompts = map[string]TrialCounts{}
		}
		rec.Prompts[id] = c
	}
	return rec
}

// PromptCounts counts each trigger prompt's trials and correct ones (an errored trial is not
// correct), keyed by prompt id, with its PromptPoolKey.
func PromptCounts(s *SuiteResult, trs []*TriggerResult) map[string]TrialCounts {
	out := map[string]TrialCounts{}
	for _, tr := range trs {
		if tr == nil || tr.ID == "" {
			continue
		}
		c, ok := out[tr.ID]
		if !ok {
			c.Key = PromptPoolKey(s, tr)
		}
		c.Trials++
		if tr.ErrorMsg == "" && tr.DidTrigger == tr.ShouldTrigger {
			c.Passed++
		}
		out[tr.ID] = c
	}
	return out
}

// PoolKey identifies what decides a task's pass probability in a run: the task's definition
// and graders (their content hashes), the skills, the executor, its version, the model, the
// timeout and the attempts per trial.
// Runs with equal keys are draws of the same task; "" (a file without the hashes) never pools.
func PoolKey(s *SuiteResult, t *TaskResult) string {
	if t == nil {
		return ""
	}
	return poolKey(s, t.DefinitionHash, t.GradersHash)
}

func poolKey(s *SuiteResult, definition, graders string) string {
	if definition == "" || graders == "" {
		return ""
	}
	return runSetting(s, "task", definition, graders)
}

// PromptPoolKey is PoolKey for a trigger prompt: its text and expectation instead of a task's
// hashes.
func PromptPoolKey(s *SuiteResult, tr *TriggerResult) string {
	if tr == nil || s == nil || s.Provenance == nil || len(s.Provenance.SkillHashes) == 0 {
		return "" // without the skills' hashes a changed skill would look unchanged
	}
	should := "should-not"
	if tr.ShouldTrigger {
		should = "should"
	}
	return runSetting(s, "prompt", tr.Prompt, should)
}

func runSetting(s *SuiteResult, kind string, parts ...string) string {
	h := sha256.New()
	write := func(v string) {
		h.Write([]byte(v))
		h.Write([]byte{0})
	}
	write(kind)
	for _, p := range parts {
		write(p)
	}
	if s != nil {
		executor, model := s.Config.EngineType, s.Config.ModelID
		if p := s.Provenance; p != nil {
			if p.Executor != "" {
				executor = p.Executor
			}
			if p.Model != "" {
				model = p.Model
			}
			write(p.AgentVersion)
			names := make([]string, 0, len(p.SkillHashes))
			for name := range p.SkillHashes {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				write(name)
				write(p.SkillHashes[name])
			}
		}
		write(executor)
		write(model)
		write(strconv.Itoa(s.Config.TimeoutSec))
		write(strconv.Itoa(s.Config.MaxAttempts))
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}
