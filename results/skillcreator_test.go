package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A real skill-creator workspace imports as one suite: a task per eval with its graded checks
// and evidence, the output files as the run's answer, timing as duration, and without_skill as
// the uplift baseline (skill − baseline per eval).
func TestReadSkillCreator(t *testing.T) {
	ws := filepath.Join("testdata", "skill-creator", "geoffsdesk__gke-upgrades-skill-workspace")
	if !IsSkillCreatorWorkspace(ws) || !IsSkillCreatorWorkspace(filepath.Join(ws, "iteration-1")) || IsSkillCreatorWorkspace("testdata") {
		t.Fatal("workspace detection")
	}
	res, err := ReadSkillCreator(ws, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.EvalName != "gke-upgrades" || len(res.Tasks) != 3 || res.BaselineOutcome == nil || !res.Config.Uplift || res.Config.EngineType != "skill-creator" {
		t.Fatalf("%s: %d tasks, uplift %v", res.EvalName, len(res.Tasks), res.Config.Uplift)
	}
	task := res.Tasks[0] // autopilot-checklists
	run := task.Runs[0]
	if task.ID != "2" || task.Status != StatusPassed || len(run.Validations) != 9 || run.DurationMS != 53439 {
		t.Fatalf("task %s: %s, %d checks, %d ms", task.ID, task.Status, len(run.Validations), run.DurationMS)
	}
	v := run.Validations[0]
	if !v.Passed || v.Details["check"] != "Distinguishes between dev (Rapid) and prod (Stable) clusters in the checklists" || !strings.HasPrefix(v.Feedback, "Separate sections") {
		t.Errorf("check 1: %+v", v)
	}
	if !strings.Contains(run.FinalOutput, "Autopilot") || len(run.ChangedFiles) != 1 || run.ChangedFiles[0].Path != "outputs/checklists.md" {
		t.Errorf("outputs: %d files, answer %.40q", len(run.ChangedFiles), run.FinalOutput)
	}
	base := res.BaselineOutcome
	if base.Summary.Failed == 0 || res.Summary.Succeeded != 3 {
		t.Errorf("baseline %+v, head %+v", base.Summary, res.Summary)
	}
	for _, task := range res.Tasks {
		imp := task.SkillImpact
		if imp == nil || imp.Delta != 1 || imp.DeltaCI == nil {
			t.Errorf("task %s impact %+v", task.ID, imp)
		}
	}
}

// run-N folders are the runs of a configuration; a workspace with only benchmark.json imports
// its runs' expectations; one with nothing graded is an error.
func TestReadSkillCreatorLayouts(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := func(pass bool) string {
		return `{"assertion_results": [{"text": "t", "passed": ` + map[bool]string{true: "true", false: "false"}[pass] + `, "evidence": "e"}]}`
	}
	write("iteration-1/x/with_skill/grading.json", g(false))
	write("iteration-2/greet/with_skill/run-1/grading.json", g(true))
	write("iteration-2/greet/with_skill/run-2/grading.json", g(false))
	write("iteration-2/greet/with_skill/run-2/timing.json", `{"total_duration_seconds": 2.5}`)
	write("iteration-2/greet/old_skill/run-1/grading.json", g(true))
	res, err := ReadSkillCreator(dir, "greeter")
	if err != nil {
		t.Fatal(err)
	}
	task := res.Tasks[0]
	if res.EvalName != "greeter" || task.ID != "greet" || len(task.Runs) != 2 || task.Runs[1].DurationMS != 2500 || task.Status != StatusFailed {
		t.Fatalf("%+v", task)
	}
	if res.BaselineOutcome == nil || res.BaselineOutcome.Tasks[0].Status != StatusPassed {
		t.Errorf("old_skill is the baseline")
	}
	bench := t.TempDir()
	os.WriteFile(filepath.Join(bench, "benchmark.json"), []byte(`{"metadata": {"skill_name": "s"}, "runs": [
 {"eval_id": 1, "eval_name": "a", "configuration": "with_skill", "run_number": 1, "result": {"time_seconds": 3}, "expectations": [{"text": "x", "passed": true, "evidence": "y"}]}]}`), 0o644)
	os.Mkdir(filepath.Join(bench, "a"), 0o755)
	os.WriteFile(filepath.Join(bench, "a", "eval_metadata.json"), []byte(`{"eval_id": 1, "eval_name": "a"}`), 0o644)
	res, err = ReadSkillCreator(bench, "")
	if err != nil || res.EvalName != "s" || res.Tasks[0].Status != StatusPassed || res.Tasks[0].Runs[0].DurationMS != 3000 {
		t.Fatalf("benchmark only: %v %+v", err, res)
	}
	if _, err := ReadSkillCreator(t.TempDir(), ""); err == nil || !strings.Contains(err.Error(), "no graded run") {
		t.Errorf("empty: %v", err)
	}

	// The loop stopped mid-iteration (greghavens/vcf-9-x-skills: iteration-4 holds
	// eval-N/grading.json with no configuration folder): the latest iteration with a graded run
	// is read, and the provenance names the one passed over.
	write("iteration-3/eval-1/grading.json", g(true))
	res, err = ReadSkillCreator(dir, "greeter")
	if err != nil || res.Tasks[0].ID != "greet" || !strings.Contains(res.Provenance.SuiteFile, "iteration-2 (the latest iteration with a graded run; iteration-3 had none)") {
		t.Fatalf("half-written iteration: %v %+v", err, res)
	}
	// A grading file that is not JSON (greghavens/vcf-9-x-skills: a raw newline inside a
	// string) leaves its run out, not the workspace; the provenance says so.
	write("iteration-3/other/with_skill/grading.json", g(true))
	write("iteration-3/broken/with_skill/grading.json", "{\"expectations\": [{\"text\": \"a\nb\", \"passed\": true}]}")
	res, err = ReadSkillCreator(dir, "greeter")
	if err != nil || len(res.Tasks) != 1 || res.Tasks[0].ID != "other" ||
		!strings.Contains(res.Provenance.SuiteFile, "; 1 grading file(s) could not be read and their runs are left out (first: "+filepath.Join(dir, "iteration-3", "broken", "with_skill", "grading.json")+": invalid character") {
		t.Fatalf("unreadable grading file: %v %+v", err, res.Provenance)
	}
	only := t.TempDir()
	os.MkdirAll(filepath.Join(only, "iteration-1", "eval-1"), 0o755)
	os.MkdirAll(filepath.Join(only, "iteration-2", "eval-1"), 0o755)
	if _, err := ReadSkillCreator(only, ""); err == nil || !strings.Contains(err.Error(), "no graded run (no <eval>/with_skill/grading.json, nor runs in benchmark.json) in any of iteration-2, iteration-1") {
		t.Errorf("no iteration graded: %v", err)
	}
}

// FuzzReadSkillCreator: no content of a workspace's JSON files crashes the importer.
func FuzzReadSkillCreator(f *testing.F) {
	ws := filepath.Join("testdata", "skill-creator", "geoffsdesk__gke-upgrades-skill-workspace", "iteration-1")
	for _, name := range []string{"benchmark.json", "autopilot-checklists/with_skill/grading.json", "autopilot-checklists/with_skill/timing.json", "autopilot-checklists/eval_metadata.json"} {
		data, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"runs": [{"eval_id": [1], "configuration": "with_skill", "result": {"time_seconds": "x"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		for _, name := range []string{"benchmark.json", "e/eval_metadata.json", "e/with_skill/grading.json", "e/with_skill/timing.json", "e/without_skill/run-1/grading.json"} {
			p := filepath.Join(dir, filepath.FromSlash(name))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, data, 0o644)
		}
		res, err := ReadSkillCreator(dir, "s")
		if err == nil && (res == nil || res.EvalName == "") {
			t.Fatalf("no error and no suite")
		}
	})
}

// A grading file without a list of checks is not guessed at: its run is left out, and an
// iteration of nothing else has no graded run.
func TestReadSkillCreatorChecksNotGuessed(t *testing.T) {
	check := `{"text": "names the flaw", "passed": true}`
	dir := t.TempDir()
	p := filepath.Join(dir, "iteration-1", "pay", "with_skill", "grading.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"a": [`+check+`], "b": [`+check+`]}`), 0o644)
	if _, err := ReadSkillCreator(dir, ""); err == nil || !strings.Contains(err.Error(), "no graded run") {
		t.Errorf("two unknown lists: %v", err)
	}
	if _, err := readCreatorRun(filepath.Dir(p), 1); err == nil || !strings.Contains(err.Error(), "no list of checks") {
		t.Errorf("readCreatorRun: %v", err)
	}
}

// Grading files as public workspaces write them (shapes of nathan-gage/wooyun-legacy-english,
// whose grader wrote outputs/grading.json, and ZhaoRuidong/code2design, whose list is
// `evaluations`; neither licence lets the files be copied, so the shapes are rebuilt here): each
// imports its checks, the grader's file is not the run's answer, and a workspace given as "."
// is named for its folder.
func TestReadSkillCreatorGradingShapes(t *testing.T) {
	check := `{"text": "names the flaw", "passed": true, "evidence": "line 3"}, {"text": "cites the fix", "passed": false, "evidence": "none"}`
	tests := []struct {
		name    string
		files   map[string]string
		checks  int
		passed  int
		answer  string
		outputs int
	}{
		{"outputs/grading.json", map[string]string{
			"iteration-1/pay/with_skill/outputs/grading.json": `{"expectations": [` + check + `]}`,
			"iteration-1/pay/with_skill/outputs/report.md":    "the report",
		}, 2, 1, "the report", 1},
		{"evaluations list", map[string]string{
			"iteration-1/pay/with_skill/grading.json": `{"evaluations": [` + check + `], "summary": {"passed": 1, "total": 2}}`,
		}, 2, 1, "", 0},
		{"assertion key", map[string]string{
			"iteration-1/pay/with_skill/grading.json": `{"results": [{"assertion": "names the flaw", "passed": true}]}`,
		}, 1, 1, "", 0},
		// greghavens/vcf-9-x-skills aggregates a configuration's runs in one file.
		{"runs in one file", map[string]string{
			"iteration-1/pay/with_skill/grading.json": `{"eval_id": 1, "condition": "with_skill", "runs": [{"run": 1, "expectations": [` + check + `]}, {"run": 2, "expectations": [` + check + `]}]}`,
		}, 2, 1, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "my-skill-workspace")
			for rel, content := range tt.files {
				p := filepath.Join(dir, filepath.FromSlash(rel))
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(dir)
			res, err := ReadSkillCreator(".", "")
			if err != nil {
				t.Fatal(err)
			}
			if res.EvalName != "my-skill-workspace" {
				t.Errorf("named %q", res.EvalName)
			}
			if tt.name == "runs in one file" && (len(res.Tasks[0].Runs) != 2 || res.Tasks[0].Runs[1].RunNumber != 2) {
				t.Errorf("runs %+v", res.Tasks[0].Runs)
			}
			run := res.Tasks[0].Runs[0]
			passed := 0
			for _, v := range run.Validations {
				if v.Passed {
					passed++
				}
			}
			if len(run.Validations) != tt.checks || passed != tt.passed || run.FinalOutput != tt.answer || len(run.ChangedFiles) != tt.outputs {
				t.Errorf("%d checks (%d passed), answer %q, %d files", len(run.Validations), passed, run.FinalOutput, len(run.ChangedFiles))
			}
		})
	}
}
