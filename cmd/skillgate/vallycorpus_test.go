package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
)

// vallyCorpus holds real Vally specs written outside this project, with the files they use
// (testdata/vally-corpus/SOURCES.md names each repository, commit and licence).
const vallyCorpus = "testdata/vally-corpus"

var topLevelStimuli = regexp.MustCompile(`(?m)^stimuli[ \t]*:`)

// vallySpecFiles lists the corpus's spec files: every YAML file with a top-level `stimuli:`.
func vallySpecFiles(t *testing.T) []string {
	t.Helper()
	var specs []string
	err := filepath.WalkDir(vallyCorpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil && topLevelStimuli.Match(data) {
			specs = append(specs, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(specs)
	return specs
}

// unavoidable are the reasons a run of the corpus may error that skillgate cannot handle: a
// file the repository does not contain, a set-up command that needs the network (the test runs
// offline: git may not fetch), a program this machine does not have.
var machine = regexp.MustCompile(`is not installed on this machine`)

var commandOutput = regexp.MustCompile(`\) failed: .*$`)

var unavoidable = regexp.MustCompile(`environment file "[^"]*" not found \(src is relative to|environment command "git fetch[^"]*" \([^)]*\) failed|is not installed on this machine`)

// TestVallySpecCorpus is the Vally compatibility promise: every real spec runs under the mock
// executor, with a scripted judge, and grades every stimulus — none errors for a reason
// skillgate could handle. Exit codes, stimulus counts and the reasons of the runs that error are
// kept in testdata/vally-corpus.golden; `go test ./cmd/skillgate -run VallySpecCorpus -update`
// rewrites it.
func TestVallySpecCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the whole Vally corpus")
	}
	ts, _ := judgeServer(t)
	env := map[string]string{"SKILLGATE_JUDGE_BASE_URL": ts.URL, "SKILLGATE_JUDGE_API_KEY": "test-key", "SKILLGATE_JUDGE_MODEL": "scripted-judge"}
	// Set-up commands that fetch over the network fail at once instead of reaching it.
	t.Setenv("GIT_ALLOW_PROTOCOL", "file")
	specs := vallySpecFiles(t)
	if len(specs) < 19 {
		t.Fatalf("found %d specs in %s", len(specs), vallyCorpus)
	}
	wd, _ := os.Getwd()
	var golden strings.Builder
	graded := 0
	for _, spec := range specs {
		out := t.TempDir()
		code, _, stderr := run(t, env, "run", "--executor", "mock", "--quiet", "--out", out, spec)
		fmt.Fprintf(&golden, "## %s\nexit %d\n", filepath.ToSlash(strings.TrimPrefix(spec, vallyCorpus+"/")), code)
		if code != exitOK && code != exitFailed {
			t.Errorf("%s: exit %d, want 0 or 1:\n%s", spec, code, lastLines(stderr, 10))
			continue
		}
		res, err := results.ReadFile(results.PathIn(out, resultsName(t, out)))
		if err != nil {
			t.Errorf("%s: no results: %v", spec, err)
			continue
		}
		stimuli, errored := 0, 0
		reasons := map[string]bool{}
		for _, task := range res.Tasks {
			stimuli++
			all := true
			for _, r := range task.Runs {
				if r.Status != results.StatusError {
					continue
				}
				// What this machine lacks (a program a grader runs) depends on the machine, not
				// on skillgate: it is allowed, and left out of the golden file.
				for _, part := range strings.Split(r.ErrorMsg, "; ") {
					reason := strings.ReplaceAll(part, wd+string(filepath.Separator), "")
					if !unavoidable.MatchString(reason) {
						t.Errorf("%s: stimulus %q errored: %s", spec, task.ID, reason)
					}
					if !machine.MatchString(reason) {
						// The failing command's own output depends on the tools' versions.
						reasons[commandOutput.ReplaceAllString(reason, ") failed")] = true
						all = false
					}
				}
			}
			if all {
				graded++
			} else {
				errored++
			}
		}
		fmt.Fprintf(&golden, "stimuli %d: %d graded in full, %d with a run that errored (programs this machine lacks aside)\n", stimuli, stimuli-errored, errored)
		for _, r := range sortedKeys(reasons) {
			fmt.Fprintf(&golden, "error: %s\n", r)
		}
	}
	t.Logf("%d specs, %d stimuli graded in full", len(specs), graded)
	checkGolden(t, "testdata/vally-corpus.golden", golden.String())
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// dotnet/skills' skill-vs-baseline experiment, run with --experiment: its extglob takes the
// fork's convert-to-cpm and code-testing-agent specs and leaves out agent.test-migration; the
// overrides set the model and five runs; the baseline removes every skill and the other variants
// only set one, so each of them runs in uplift mode and reports the skill's uplift per stimulus.
func TestVallyExperiment(t *testing.T) {
	ts, _ := judgeServer(t)
	env := map[string]string{"SKILLGATE_JUDGE_BASE_URL": ts.URL, "SKILLGATE_JUDGE_API_KEY": "test-key"}
	out := t.TempDir()
	code, _, stderr := run(t, env, "run", "--executor", "mock", "--quiet", "--out", out,
		"--experiment", vallyCorpus+"/adityamandaleeka__skills/dotnet-skills.experiment.yaml")
	if code != exitOK && code != exitFailed {
		t.Fatalf("exit %d\n%s", code, lastLines(stderr, 10))
	}
	files, _ := filepath.Glob(filepath.Join(out, "results", "*.json"))
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	want := []string{"code-testing-agent-skilled.json", "code-testing-agent-trimmed.json", "convert-to-cpm-skilled.json", "convert-to-cpm-trimmed.json"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("results %v, want %v", names, want)
	}
	res := readResults(t, filepath.Join(out, "results", "convert-to-cpm-skilled.json"))
	if res.EvalName != "convert-to-cpm [skilled]" || res.Config.RunsPerTest != 5 || res.Config.ModelID != "claude-haiku-4.5" || len(res.Tasks) != 8 {
		t.Errorf("suite %q runs %d model %q tasks %d", res.EvalName, res.Config.RunsPerTest, res.Config.ModelID, len(res.Tasks))
	}
	for _, task := range res.Tasks {
		if task.SkillImpact == nil || len(task.Runs) != 5 {
			t.Errorf("%s: uplift %+v, %d runs", task.ID, task.SkillImpact, len(task.Runs))
		}
	}
	if res.BaselineOutcome == nil || len(res.BaselineOutcome.Tasks) != 8 {
		t.Errorf("the baseline variant's runs (the without-skill pass) are missing")
	}
	// The trimmed variant names a skill folder the repository does not have: a warning, at the
	// experiment's line; mock runs go on without it.
	if !strings.Contains(stderr, "dotnet-skills.experiment.yaml:38:11: warning: variants.trimmed.environment.skills[0]") {
		t.Errorf("no warning for the missing trimmed skill:\n%s", lastLines(stderr, 20))
	}
}

// microsoft/mcp's eventhub-get experiment (run with --experiment; not beside a .vally.yaml)
// differs only in an MCP server, which skillgate does not start: both variants are
// configurations of their own, named after the variant.
func TestVallyExperimentConfigurations(t *testing.T) {
	ts, _ := judgeServer(t)
	env := map[string]string{"SKILLGATE_JUDGE_BASE_URL": ts.URL, "SKILLGATE_JUDGE_API_KEY": "test-key"}
	out := t.TempDir()
	dir := vallyCorpus + "/microsoft__mcp/servers/Azure.Mcp.Server/tests/Vally/eventhubs"
	code, _, stderr := run(t, env, "run", "--executor", "mock", "--quiet", "--out", out, "--experiment", dir+"/eventhub-get.experiment.yaml")
	if code != exitOK && code != exitFailed {
		t.Fatalf("exit %d\n%s", code, lastLines(stderr, 10))
	}
	for _, v := range []string{"baseline", "treatment"} {
		res := readResults(t, filepath.Join(out, "results", "eventhubs-eventhub-get-eval-"+v+".json"))
		if res.EvalName != "eventhubs-eventhub-get-eval ["+v+"]" || len(res.Tasks) != 2 || res.BaselineOutcome != nil {
			t.Errorf("%s: %q %d tasks uplift %v", v, res.EvalName, len(res.Tasks), res.BaselineOutcome != nil)
		}
	}
}

// `skillgate run PATH` finds an experiment beside the .vally.yaml under PATH and runs the specs
// it names under its variants instead of on their own. The folder is a copy of the real files
// (the fork's .vally.yaml, the experiment, the convert-to-cpm spec with its fixtures, its skill).
func TestVallyExperimentDiscovered(t *testing.T) {
	src := vallyCorpus + "/adityamandaleeka__skills"
	dir := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		keep := rel == ".vally.yaml" || rel == "dotnet-skills.experiment.yaml" || strings.HasPrefix(rel, "plugins/") ||
			strings.HasPrefix(rel, "tests/dotnet-nuget/convert-to-cpm/") && rel != "tests/dotnet-nuget/convert-to-cpm/eval.yaml"
		if !keep {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dest := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dest, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := judgeServer(t)
	env := map[string]string{"SKILLGATE_JUDGE_BASE_URL": ts.URL, "SKILLGATE_JUDGE_API_KEY": "test-key"}
	out := t.TempDir()
	code, _, stderr := run(t, env, "run", "--executor", "mock", "--quiet", "--trials", "1", "--out", out, dir)
	if code != exitOK && code != exitFailed {
		t.Fatalf("exit %d\n%s", code, lastLines(stderr, 10))
	}
	files, _ := filepath.Glob(filepath.Join(out, "results", "*.json"))
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if strings.Join(names, " ") != "convert-to-cpm-skilled.json convert-to-cpm-trimmed.json" {
		t.Errorf("results %v: the spec must run under the experiment's variants only", names)
	}
	// The experiment ran: the skipped-files line says so rather than asking for --experiment
	// (microsoft/aspire-skills' skill-lift.experiment.yaml was noted "applied with --experiment").
	if want := "dotnet-skills.experiment.yaml (a Vally experiment beside .vally.yaml: the specs it names run under its variants)"; !strings.Contains(stderr, want) ||
		strings.Contains(stderr, "applied with --experiment") {
		t.Errorf("stderr lacks %q:\n%s", want, lastLines(stderr, 10))
	}
}
