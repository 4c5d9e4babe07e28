package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/skillgate/skillgate/results"
)

func init() {
	Register("replay", newReplay)
}

// Replay re-serves recorded runs so graders can be re-run without any agent
// (docs/agents.md#the-replay-executor). Its input is a results file (skillgate's or waza's), a
// previous --out folder (its results/<suite>.json), or a folder of run files: <task-id>.json or
// <task-id>.<trial>.json (one normalized run each; <task-id>.json serves every trial without a file
// of its own) and trigger-<id>.json / trigger-<id>.<trial>.json for trigger prompts.
type Replay struct {
	from  string
	suite string
	log   io.Writer

	once    sync.Once
	loadErr error
	// index of a results file; nil in run-file mode
	recorded *recordedRuns
}

type runKey struct {
	id        string
	trial     int
	trigger   bool
	withSkill bool
}

type recordedRuns struct {
	path string
	runs map[runKey]*results.AgentRun
}

func newReplay(opts Options) (Executor, error) {
	if opts.ReplayFrom == "" {
		return nil, errors.New("the replay executor needs recorded runs: pass --from FILE|DIR")
	}
	if _, err := os.Stat(opts.ReplayFrom); err != nil {
		return nil, fmt.Errorf("replay input: %w", err)
	}
	return &Replay{from: opts.ReplayFrom, suite: opts.Suite, log: opts.Log}, nil
}

// Name implements Executor.
func (r *Replay) Name() string { return "replay" }

// Run implements Executor.
func (r *Replay) Run(ctx context.Context, req *Request) (*results.AgentRun, error) {
	r.once.Do(r.load)
	if r.loadErr != nil {
		return nil, r.loadErr
	}
	var run *results.AgentRun
	var err error
	if r.recorded != nil {
		run = r.recorded.runs[runKey{id: req.TaskID, trial: req.Trial, trigger: req.Trigger, withSkill: req.WithSkill}]
		if run == nil {
			return nil, fmt.Errorf("no recorded run for %s in %s", describeRequest(req), r.recorded.path)
		}
		run = cloneRun(run)
	} else {
		run, err = r.readRunFile(req)
		if err != nil {
			return nil, err
		}
	}
	run.SessionDigest = run.Digest()
	if run.AgentError != "" {
		return run, errors.New(run.AgentError)
	}
	return run, nil
}

func describeRequest(req *Request) string {
	what := "task " + req.TaskID
	if req.Trigger {
		what = "trigger prompt " + req.TaskID
	}
	if !req.WithSkill {
		what += " (without skill)"
	}
	return fmt.Sprintf("%s trial %d", what, req.Trial)
}

// load decides between a results file and a folder of run files.
func (r *Replay) load() {
	info, err := os.Stat(r.from)
	if err != nil {
		r.loadErr = err
		return
	}
	path := r.from
	if info.IsDir() {
		path = ""
		candidate := results.PathIn(r.from, r.suite)
		if _, err := os.Stat(candidate); err != nil {
			return // run-file mode
		}
		path = candidate
	}
	s, err := results.ReadFile(path)
	if err != nil {
		r.loadErr = err
		return
	}
	if r.suite != "" && s.EvalName != r.suite && r.log != nil {
		fmt.Fprintf(r.log, "warning: replaying %s (suite %q) for suite %q\n", path, s.EvalName, r.suite)
	}
	rec := &recordedRuns{path: path, runs: map[runKey]*results.AgentRun{}}
	index := func(s *results.SuiteResult, withSkill bool) {
		for _, t := range s.Tasks {
			for i, run := range t.Runs {
				trial := run.Trial(i)
				agentRun := run.AgentRun
				if agentRun.AgentError == "" && run.Status == results.StatusError && len(run.Validations) == 0 &&
					!strings.HasPrefix(run.ErrorMsg, "running graders") {
					// waza records agent failures only as error_msg.
					agentRun.AgentError = run.ErrorMsg
				}
				rec.runs[runKey{id: t.ID, trial: trial, withSkill: withSkill}] = &agentRun
			}
		}
	}
	index(s, true)
	if s.BaselineOutcome != nil {
		index(s.BaselineOutcome, false)
	}
	for i, tr := range s.TriggerResults {
		trial := tr.Trial
		if trial == 0 {
			trial = 1
		}
		id := tr.ID
		if id == "" {
			id = fmt.Sprintf("#%d", i+1)
		}
		rec.runs[runKey{id: id, trial: trial, trigger: true, withSkill: true}] = &results.AgentRun{
			FinalOutput: tr.FinalOutput,
			Transcript:  tr.Transcript,
			SessionDigest: results.SessionDigest{
				ToolCalls: tr.ToolCalls,
				SessionID: tr.SessionID,
				Usage:     tr.Usage,
			},
			DurationMS:   tr.DurationMS,
			AgentError:   tr.ErrorMsg,
			StoppedEarly: tr.StoppedEarly,
		}
	}
	r.recorded = rec
}

// readRunFile reads the recorded run of one request from a folder of run files: a normalized
// run (<base>.json) or an agent's native transcript (<base>.jsonl, or a .json that is not a
// normalized run, such as Claude Code's --output-format json), trial-specific files first.
func (r *Replay) readRunFile(req *Request) (*results.AgentRun, error) {
	base := req.TaskID
	if req.Trigger {
		base = "trigger-" + req.TaskID
	}
	if !req.WithSkill {
		base += ".noskill"
	}
	var candidates []string
	for _, stem := range []string{fmt.Sprintf("%s.%d", base, req.Trial), base} {
		candidates = append(candidates, filepath.Join(r.from, stem+".json"), filepath.Join(r.from, stem+".jsonl"))
	}
	for _, path := range candidates {
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if strings.HasSuffix(path, ".json") && isNormalizedRun(data) {
			run := &results.AgentRun{}
			if err := json.Unmarshal(data, run); err != nil {
				return nil, fmt.Errorf("%s: not a recorded run: %w", path, err)
			}
			run.Transcript = results.NormalizeTranscript(run.Transcript)
			return run, nil
		}
		run, err := ParseTranscript("", bytes.NewReader(data))
		if run == nil {
			return nil, fmt.Errorf("%s: not a recorded run or agent transcript: %w", path, err)
		}
		if err != nil && run.AgentError == "" {
			run.AgentError = err.Error()
		}
		return run, nil
	}
	return nil, fmt.Errorf("no recorded run for %s: none of %s exists", describeRequest(req), strings.Join(relAll(r.from, candidates), ", "))
}

// isNormalizedRun tells a normalized run file from a native transcript: a JSON object with any
// of the normalized run's keys.
func isNormalizedRun(data []byte) bool {
	var keys map[string]json.RawMessage
	if json.Unmarshal(data, &keys) != nil {
		// Several JSON lines are a native stream saved as .json; anything else is a broken run file.
		return bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) && !bytes.Contains(data, []byte("\n{"))
	}
	for _, k := range []string{"final_output", "transcript", "session_digest", "agent_error"} {
		if _, ok := keys[k]; ok {
			return true
		}
	}
	return false
}

func relAll(dir string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Join(filepath.Base(dir), filepath.Base(p))
	}
	return out
}

// cloneRun copies a recorded run so graders of different trials never share mutable state.
func cloneRun(run *results.AgentRun) *results.AgentRun {
	c := *run
	c.Transcript = append([]results.Event(nil), run.Transcript...)
	d := run.SessionDigest
	d.ToolsUsed = append([]string(nil), d.ToolsUsed...)
	d.ToolCalls = append([]results.ToolCall(nil), d.ToolCalls...)
	d.SkillInvocations = append([]results.SkillInvocation(nil), d.SkillInvocations...)
	d.Errors = append([]string(nil), d.Errors...)
	c.SessionDigest = d
	return &c
}
