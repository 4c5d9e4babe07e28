package results

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// skill-creator writes one folder per iteration of its loop (docs/results.md#importing-skill-creator-outputs):
// `<eval>/<configuration>/[run-N/]grading.json` with timing.json and outputs/ beside it,
// `<eval>/eval_metadata.json`, and `benchmark.json` pooling the runs. ReadSkillCreator turns such a
// workspace into one SuiteResult — one task per eval, one run per graded run — with the baseline
// configuration (without_skill, old_skill) as the uplift outcome, so the comment, the comparison
// and the gate work for teams that run skill-creator by hand and commit its outputs.

// The configurations skill-creator names: the skill under test, and its baselines.
var (
	creatorPrimary  = []string{"with_skill", "new_skill"}
	creatorBaseline = []string{"without_skill", "old_skill", "baseline"}
)

type creatorGrading struct {
	Expectations     []creatorExpectation `json:"expectations"`
	AssertionResults []creatorExpectation `json:"assertion_results"`
}

// checks are a grading.json's graded checks: `expectations` (skill-creator) or
// `assertion_results` (agentskills.io); else, as authors rename the list (`evaluations`), the
// one other top-level list whose every item has a text and a boolean `passed`.
func (g *creatorGrading) checks(data []byte) []creatorExpectation {
	if all := append(g.Expectations, g.AssertionResults...); len(all) > 0 {
		return all
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return nil
	}
	var found []creatorExpectation
	lists := 0
	for _, raw := range top {
		var items []map[string]any
		if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
			continue
		}
		var list []creatorExpectation
		for _, it := range items {
			passed, ok := it["passed"].(bool)
			text, _ := it["text"].(string)
			if text == "" {
				text, _ = it["assertion"].(string)
			}
			if !ok || text == "" {
				list = nil
				break
			}
			evidence, _ := it["evidence"].(string)
			list = append(list, creatorExpectation{Text: text, Passed: passed, Evidence: evidence})
		}
		if list != nil {
			found = list
			lists++
		}
	}
	if lists != 1 {
		return nil // none, or several lists: which holds the checks is not guessed
	}
	return found
}

type creatorExpectation struct {
	Text     string `json:"text"`
	Passed   bool   `json:"passed"`
	Evidence string `json:"evidence"`
}

type creatorTiming struct {
	DurationMS           *float64 `json:"duration_ms"`
	TotalDurationSeconds *float64 `json:"total_duration_seconds"`
}

type creatorMetadata struct {
	EvalID   any    `json:"eval_id"`
	EvalName string `json:"eval_name"`
	Prompt   string `json:"prompt"`
}

type creatorBenchmark struct {
	Metadata struct {
		SkillName     string `json:"skill_name"`
		ExecutorModel string `json:"executor_model"`
		Timestamp     string `json:"timestamp"`
	} `json:"metadata"`
	Runs []struct {
		EvalID        any                  `json:"eval_id"`
		EvalName      string               `json:"eval_name"`
		Configuration string               `json:"configuration"`
		RunNumber     int                  `json:"run_number"`
		Result        map[string]any       `json:"result"`
		Expectations  []creatorExpectation `json:"expectations"`
	} `json:"runs"`
}

var iterationDir = regexp.MustCompile(`^iteration-(\d+)$`)

// IsSkillCreatorWorkspace reports whether dir holds skill-creator's run outputs: a
// benchmark.json, a configuration folder with a grading.json, or iteration-N folders of them.
func IsSkillCreatorWorkspace(dir string) bool {
	if iter, _ := latestIteration(dir); iter != dir {
		return true
	}
	if fileExists(filepath.Join(dir, "benchmark.json")) {
		return true
	}
	found := false
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipDir
		}
		if rel, _ := filepath.Rel(dir, p); strings.Count(rel, string(filepath.Separator)) > 3 {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "grading.json" && isConfiguration(filepath.Base(filepath.Dir(p)), filepath.Base(filepath.Dir(filepath.Dir(p)))) {
			found = true
		}
		return nil
	})
	return found
}

func isConfiguration(name, parent string) bool {
	all := append(slices.Clone(creatorPrimary), creatorBaseline...)
	return slices.Contains(all, name) || (strings.HasPrefix(name, "run-") && slices.Contains(all, parent))
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// latestIteration is dir's highest iteration-N folder, or dir itself when it has none.
func latestIteration(dir string) (string, int) {
	iters := iterations(dir)
	if len(iters) == 0 {
		return dir, -1
	}
	return iters[0].dir, iters[0].n
}

type creatorIteration struct {
	dir string
	n   int
}

// iterations are dir's iteration-N folders, highest N first.
func iterations(dir string) []creatorIteration {
	entries, _ := os.ReadDir(dir)
	var out []creatorIteration
	for _, e := range entries {
		if m := iterationDir.FindStringSubmatch(e.Name()); m != nil && e.IsDir() {
			v, _ := strconv.Atoi(m[1])
			out = append(out, creatorIteration{filepath.Join(dir, e.Name()), v})
		}
	}
	slices.SortFunc(out, func(a, b creatorIteration) int { return b.n - a.n })
	return out
}

// errNoGradedRun is an iteration without a graded run.
var errNoGradedRun = errors.New("no graded run (no <eval>/with_skill/grading.json, nor runs in benchmark.json)")

// ReadSkillCreator reads a skill-creator workspace (or one iteration of it) into a results file:
// of several iterations, the latest that holds a graded run (an iteration the loop left
// half-written is passed over, and the provenance says so). skill names the suite when
// benchmark.json does not.
func ReadSkillCreator(dir, skill string) (*SuiteResult, error) {
	iters := iterations(dir)
	if len(iters) == 0 {
		return readSkillCreatorIteration(dir, -1, skill, nil)
	}
	var passed []string
	for _, it := range iters {
		res, err := readSkillCreatorIteration(it.dir, it.n, skill, passed)
		if !errors.Is(err, errNoGradedRun) {
			return res, err
		}
		passed = append(passed, filepath.Base(it.dir))
	}
	return nil, fmt.Errorf("%s: %w in any of %s", dir, errNoGradedRun, strings.Join(passed, ", "))
}

// readSkillCreatorIteration reads one iteration folder (n < 0: a workspace without iteration
// folders); passed are the later iterations that held no graded run.
func readSkillCreatorIteration(iter string, n int, skill string, passed []string) (*SuiteResult, error) {
	var bench creatorBenchmark
	if data, err := os.ReadFile(filepath.Join(iter, "benchmark.json")); err == nil {
		if err := json.Unmarshal(data, &bench); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(iter, "benchmark.json"), err)
		}
	}
	// A workspace given as "." is named for its folder, not ".".
	named := iter
	if n >= 0 {
		named = filepath.Dir(iter)
	}
	if abs, err := filepath.Abs(named); err == nil {
		named = abs
	}
	name := cmp.Or(bench.Metadata.SkillName, skill, filepath.Base(named))
	ts, _ := time.Parse(time.RFC3339, bench.Metadata.Timestamp)
	newSuite := func() *SuiteResult {
		return &SuiteResult{SchemaVersion: SchemaVersion, EvalName: name, Skill: name, Timestamp: ts,
			Config: RunConfig{EngineType: "skill-creator", ModelID: bench.Metadata.ExecutorModel, RunsPerTest: 1}}
	}
	with, without := newSuite(), newSuite()
	evals, err := os.ReadDir(iter)
	if err != nil {
		return nil, err
	}
	graded := 0
	// A grading file that cannot be read (hand-edited, cut short) leaves its run out, not the
	// workspace: the provenance and the results line say how many and the first reason.
	var unreadable []string
	for _, e := range evals {
		if !e.IsDir() {
			continue
		}
		evalDir := filepath.Join(iter, e.Name())
		var meta creatorMetadata
		if data, err := os.ReadFile(filepath.Join(evalDir, "eval_metadata.json")); err == nil {
			json.Unmarshal(data, &meta)
		}
		id := e.Name()
		if meta.EvalID != nil {
			id = idString(meta.EvalID)
		}
		for _, side := range []struct {
			names []string
			into  *SuiteResult
		}{{creatorPrimary, with}, {creatorBaseline, without}} {
			for _, conf := range side.names {
				confDir := filepath.Join(evalDir, conf)
				runs := readCreatorRuns(confDir, &unreadable)
				if len(runs) == 0 {
					runs = benchRuns(&bench, id, meta.EvalName, conf)
				}
				if len(runs) == 0 {
					continue
				}
				graded += len(runs)
				side.into.Tasks = append(side.into.Tasks, &TaskResult{ID: id, Name: cmp.Or(meta.EvalName, e.Name()), Prompt: meta.Prompt,
					GradedByChecks: true, Runs: runs})
				break
			}
		}
	}
	if graded == 0 {
		if len(unreadable) > 0 {
			return nil, fmt.Errorf("%s: %w (%d grading file(s) could not be read; first: %s)", iter, errNoGradedRun, len(unreadable), unreadable[0])
		}
		return nil, fmt.Errorf("%s: %w", iter, errNoGradedRun)
	}
	for _, s := range []*SuiteResult{with, without} {
		for _, t := range s.Tasks {
			for _, r := range t.Runs {
				s.Summary.DurationMS += r.DurationMS // the runs' time: the import has no wall time
			}
			t.Finish()
			if len(t.Runs) > s.Config.RunsPerTest {
				s.Config.RunsPerTest = len(t.Runs)
			}
		}
		Summarize(s)
		s.Gate = ComputeGate(s)
	}
	detail := "imported from skill-creator's workspace " + iter
	if len(passed) > 0 {
		detail += " (the latest iteration with a graded run; " + strings.Join(passed, ", ") + " had none)"
	}
	if len(unreadable) > 0 {
		detail += fmt.Sprintf("; %d grading file(s) could not be read and their runs are left out (first: %s)", len(unreadable), unreadable[0])
	}
	with.Provenance = &Provenance{Executor: "skill-creator", Model: bench.Metadata.ExecutorModel, SuiteFile: detail}
	if len(without.Tasks) > 0 {
		with.IsBaseline, with.BaselineOutcome, with.Config.Uplift = true, without, true
		ComputeSkillImpact(with, without)
	}
	return with, nil
}

func idString(v any) string {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// readCreatorRuns reads a configuration folder: its grading.json (or, as some graders write
// it, outputs/grading.json), or one per run-N folder.
func readCreatorRuns(dir string, unreadable *[]string) []*RunResult {
	if fileExists(filepath.Join(dir, "grading.json")) || fileExists(filepath.Join(dir, "outputs", "grading.json")) {
		runs, err := readCreatorRun(dir, 1)
		if err != nil {
			*unreadable = append(*unreadable, err.Error())
			return nil
		}
		return runs
	}
	entries, _ := os.ReadDir(dir)
	var out []*RunResult
	for _, e := range entries {
		n, ok := strings.CutPrefix(e.Name(), "run-")
		num, err := strconv.Atoi(n)
		if !ok || err != nil || !e.IsDir() || (!fileExists(filepath.Join(dir, e.Name(), "grading.json")) && !fileExists(filepath.Join(dir, e.Name(), "outputs", "grading.json"))) {
			continue
		}
		runs, err := readCreatorRun(filepath.Join(dir, e.Name()), num)
		if err != nil {
			*unreadable = append(*unreadable, err.Error())
			continue
		}
		out = append(out, runs...)
	}
	slices.SortFunc(out, func(a, b *RunResult) int { return a.RunNumber - b.RunNumber })
	return out
}

// readCreatorRun reads one graded run: its checks, its timing and its output files. A grading
// file that holds several runs (`runs: [{run: 1, expectations: […]}, …]`, as some authors
// aggregate them) gives one run each; one without checks is an error.
func readCreatorRun(dir string, number int) ([]*RunResult, error) {
	gradingFile := filepath.Join(dir, "grading.json")
	if !fileExists(gradingFile) {
		gradingFile = filepath.Join(dir, "outputs", "grading.json")
	}
	data, err := os.ReadFile(gradingFile)
	if err != nil {
		return nil, err
	}
	var g creatorGrading
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("%s: %w", gradingFile, err)
	}
	checks := g.checks(data)
	if len(checks) == 0 {
		nested := nestedRuns(data)
		if len(nested) == 0 {
			return nil, fmt.Errorf("%s: no list of checks (expectations, assertion_results, or a list of {text, passed})", gradingFile)
		}
		var runs []*RunResult
		for i, n := range nested {
			r := &RunResult{RunNumber: cmp.Or(n.number, i+1), Attempts: 1, Validations: checksOf(n.checks)}
			r.ChangedFiles, r.FinalOutput = creatorOutputs(filepath.Join(dir, "outputs"), gradingFile)
			r.SessionDigest = Digest(nil, nil, "")
			runs = append(runs, r)
		}
		return runs, nil
	}
	r := &RunResult{RunNumber: number, Attempts: 1, Validations: checksOf(checks)}
	if data, err := os.ReadFile(filepath.Join(dir, "timing.json")); err == nil {
		var t creatorTiming
		if json.Unmarshal(data, &t) == nil {
			switch {
			case t.DurationMS != nil:
				r.DurationMS = int64(*t.DurationMS)
			case t.TotalDurationSeconds != nil:
				r.DurationMS = int64(*t.TotalDurationSeconds * 1000)
			}
		}
	}
	r.ChangedFiles, r.FinalOutput = creatorOutputs(filepath.Join(dir, "outputs"), gradingFile)
	r.SessionDigest = Digest(nil, nil, "")
	return []*RunResult{r}, nil
}

type nestedRun struct {
	number int
	checks []creatorExpectation
}

// nestedRuns are the runs of a grading file that holds several: a top-level `runs` list whose
// every item has checks (`run` or `run_number` numbers them).
func nestedRuns(data []byte) []nestedRun {
	var top struct {
		Runs []json.RawMessage `json:"runs"`
	}
	if json.Unmarshal(data, &top) != nil {
		return nil
	}
	var out []nestedRun
	for _, raw := range top.Runs {
		var g creatorGrading
		var num struct {
			Run       int `json:"run"`
			RunNumber int `json:"run_number"`
		}
		if json.Unmarshal(raw, &g) != nil {
			return nil
		}
		_ = json.Unmarshal(raw, &num)
		checks := g.checks(raw)
		if len(checks) == 0 {
			return nil
		}
		out = append(out, nestedRun{number: cmp.Or(num.Run, num.RunNumber), checks: checks})
	}
	return out
}

// checksOf turns graded expectations into one result per check, as the judged_checks grader
// records them.
func checksOf(exps []creatorExpectation) Validations {
	out := Validations{}
	for i, e := range exps {
		v := &GraderResult{Name: fmt.Sprintf("check-%d", i+1), Type: "judged_checks", Weight: 1, Passed: e.Passed, Feedback: e.Evidence,
			Details: map[string]any{"check": e.Text, "judge": "skill-creator"}}
		if e.Passed {
			v.Score = 1
		}
		out = append(out, v)
	}
	return out
}

// creatorOutputs lists a run's output files as changed files (their text recorded, as a run
// records its changes) and takes the first text file as the run's answer; the grader's own
// file, when it lies there, is neither.
func creatorOutputs(dir, grading string) ([]FileChange, string) {
	var files []FileChange
	answer := ""
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || len(files) >= 20 || p == grading {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		fc := FileChange{Path: filepath.ToSlash(filepath.Join("outputs", rel)), Change: "added"}
		if info, err := d.Info(); err == nil {
			fc.Size = info.Size()
		}
		if data, err := os.ReadFile(p); err == nil {
			if text, ok := FileText(data); ok {
				fc.Content = text
				if answer == "" {
					answer = text
				}
			} else {
				fc.Binary = true
			}
		}
		files = append(files, fc)
		return nil
	})
	return files, answer
}

// benchRuns are the runs of one eval and configuration as benchmark.json records them, for a
// workspace whose grading.json files were not committed.
func benchRuns(b *creatorBenchmark, id, name, conf string) []*RunResult {
	var out []*RunResult
	for _, r := range b.Runs {
		if r.Configuration != conf || (idString(r.EvalID) != id && (name == "" || r.EvalName != name)) {
			continue
		}
		run := &RunResult{RunNumber: max(r.RunNumber, 1), Attempts: 1, Validations: checksOf(r.Expectations)}
		if secs, ok := r.Result["time_seconds"].(float64); ok {
			run.DurationMS = int64(secs * 1000)
		}
		run.SessionDigest = Digest(nil, nil, "")
		out = append(out, run)
	}
	return out
}
