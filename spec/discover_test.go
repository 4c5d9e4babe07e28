package spec

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/testtree"
)

// Classify takes each real file for what it is (testdata/notours and testdata/skillcreator name
// their repositories, commits and licences).
func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		path string
		kind Kind
		note string // a part of the note
	}{
		{"notours/19bk__sentiment-eval-harness/.github/workflows/eval.yml", KindWorkflow, "GitHub workflow"},
		{"notours/mgechev__skillgrade/examples/superlint/eval.yaml", KindOther, "Skillgrade"},
		{"notours/opendatahub-io__agent-eval-harness/eval.yaml", KindOther, "keys waza does not have (execution, runner, models, permissions, …)"},
		{"skillcreator/0x2kNJ__cpo/evals/evals.json", KindSkillCreator, ""},
		{"skillcreator/AaronLPS__loop-builder/evals/evals.json", KindSkillCreator, ""},
		{"skillcreator/16892434__seedance-2.0/evals/evals.json", KindOther, "this file has `cases`, `updated`, `version`"},
		{"skillcreator/ASER-ho__loji-perspective/research/evals/evals.json", KindOther, "`description`, `tests`, `version`"},
		{"skillcreator/ASER-ho__loji-perspective/research/evals/trigger_queries.json", KindTriggerSet, ""},
		{"skillcreator/UrsaMU__ursamu-dev-skill/skill/evals/evals.json", KindTriggerSet, ""},
		{"skillcreator/xpepper__tcr-skill/evals/trigger_eval.json", KindTriggerSet, ""},
		{"skillcreator/jamesbuckett__skill-improve-quality/evals/answer-key.json", KindOther, ""},
		{"full/eval.yaml", KindWaza, ""},
		{"vally/spec.eval.yaml", KindVally, ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			c := Classify(filepath.Join("testdata", filepath.FromSlash(tc.path)))
			if c.Kind != tc.kind || !strings.Contains(c.Note, tc.note) {
				t.Errorf("Classify = %s (%s), want %s (%s)", c.Kind, c.Note, tc.kind, tc.note)
			}
		})
	}
}

// Find groups a folder's skill-creator files into one suite (evals.json, else its first trigger
// set), skips what is not ours with a note, and looks at trigger sets only in an evals/ folder or
// beside an evals.json.
func TestFindSkillCreator(t *testing.T) {
	f, err := Find([]string{filepath.Join("testdata", "skillcreator")})
	if err != nil {
		t.Fatal(err)
	}
	var suites []string
	for _, s := range f.Suites {
		rel, _ := filepath.Rel(filepath.Join("testdata", "skillcreator"), s)
		if abs, _ := filepath.Abs(filepath.Join("testdata", "skillcreator")); strings.HasPrefix(s, abs) {
			rel, _ = filepath.Rel(abs, s)
		}
		suites = append(suites, filepath.ToSlash(rel)+" "+string(f.Kinds[s]))
	}
	want := []string{
		"0x2kNJ__cpo/evals/evals.json skill-creator evals",
		"A-cat-with-carrots__ai-short-drama-skill/evals/evals.json skill-creator evals",
		"ASER-ho__loji-perspective/research/evals/trigger_queries.json skill-creator trigger set",
		"AaronLPS__loop-builder/evals/evals.json skill-creator evals",
		"Adityaraj0421__naksha-studio/evals/evals.json skill-creator evals",
		"UrsaMU__ursamu-dev-skill/skill/evals/evals.json skill-creator trigger set",
		"abuxton__Skills/skills/do-nothing-scripting/evals/evals.json skill-creator evals",
		"arsity__research-skill/evals/trigger_evals.json skill-creator trigger set",
		"jamesbuckett__skill-improve-quality/evals/evals.json skill-creator evals",
		"xpepper__tcr-skill/evals/evals.json skill-creator evals",
	}
	if !reflect.DeepEqual(suites, want) {
		t.Errorf("suites:\n%s\nwant\n%s", strings.Join(suites, "\n"), strings.Join(want, "\n"))
	}
	if line := f.SkippedLine(); !strings.HasPrefix(line, "skipped 3 files that are not suites: ") ||
		!strings.Contains(line, "seedance") || !strings.Contains(line, "loji-perspective/research/evals/evals.json") || !strings.Contains(line, "kujo-skills/evals/trigger-queries.json") {
		t.Errorf("skipped: %s", line)
	}

	// A JSON file named like a trigger set outside an evals/ folder is not even a candidate.
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"app/db/triggers.json":           `{"tables": []}`,
		"skill/evals/triggers.json":      `[{"query": "q", "should_trigger": true}]`,
		"skill/checks/evals.json":        `[{"id": 1, "prompt": "p"}]`,
		"skill/checks/more-queries.json": `{"queries": [{"query": "q", "should_trigger": false}]}`,
		"workflows/eval.experiment.yaml": "variants: []\n",
	})
	f, err = Find([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Suites) != 2 || !strings.HasSuffix(f.Suites[0], "skill/checks/evals.json") || !strings.HasSuffix(f.Suites[1], "skill/evals/triggers.json") {
		t.Errorf("suites: %v", f.Suites)
	}
	if len(f.Skipped) != 1 || f.Skipped[0].Kind != KindVallyExperiment {
		t.Errorf("skipped: %+v", f.Skipped)
	}
}

// A folder search names the waza suites kept under another name (waza-eval.yaml, a template,
// holdout.yaml in an evals/ folder) with the way to run them, and takes nothing else for one:
// not task files, not another tool's eval.yaml, not the suites it runs (testdata/unnamed names
// the repositories, commits and licences).
func TestFindUnnamedWazaSuites(t *testing.T) {
	for _, tc := range []struct {
		dir     string
		suites  int
		skipped int
		unnamed []string // relative to testdata/unnamed
	}{
		{"unnamed/wukongai__ip-pic-skill", 0, 1, []string{"wukongai__ip-pic-skill/evals/waza-eval.yaml"}},
		{"unnamed/ayrtonvwf__skills", 0, 0, []string{"ayrtonvwf__skills/evals/mr-feedback/eval.template.yaml"}},
		{"unnamed/dskst__ddd-skills", 1, 0, nil},
		{"unnamed", 1, 1, []string{"ayrtonvwf__skills/evals/mr-feedback/eval.template.yaml", "wukongai__ip-pic-skill/evals/waza-eval.yaml"}},
		{"notours", 0, 3, nil},
		{"full", 1, 0, nil},
		{"skillcreator", 10, 3, nil},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			f, err := Find([]string{filepath.Join("testdata", filepath.FromSlash(tc.dir))})
			if err != nil {
				t.Fatal(err)
			}
			base, _ := filepath.Abs(filepath.Join("testdata", "unnamed"))
			var unnamed []string
			for _, p := range f.Unnamed {
				rel, _ := filepath.Rel(base, p)
				unnamed = append(unnamed, filepath.ToSlash(rel))
			}
			if len(f.Suites) != tc.suites || len(f.Skipped) != tc.skipped || !reflect.DeepEqual(unnamed, tc.unnamed) {
				t.Fatalf("Find = %d suites, %d skipped, unnamed %q; want %d, %d, %q", len(f.Suites), len(f.Skipped), unnamed, tc.suites, tc.skipped, tc.unnamed)
			}
			line := f.SkippedLine()
			if len(tc.unnamed) == 0 {
				if strings.Contains(line, "not run:") {
					t.Errorf("SkippedLine names no unnamed suite, got %q", line)
				}
				return
			}
			first := filepath.Join("testdata", "unnamed", filepath.FromSlash(tc.unnamed[0]))
			for _, want := range []string{"not run: " + first, "a folder search takes only files named eval.yaml or eval.yml", "(fix: give the path, e.g. skillgate run " + first} {
				if !strings.Contains(line, want) {
					t.Errorf("SkippedLine lacks %q:\n%s", want, line)
				}
			}
			if tc.skipped > 0 && !strings.HasPrefix(line, "skipped ") {
				t.Errorf("SkippedLine should name the skipped files first: %q", line)
			}
		})
	}
}

// A trigger eval set outside evals/ and beside no evals.json (skill-creator runs whatever set it
// is given) is named with the way to run it, not run; given by path it runs, named for its own
// folder rather than the folder above the repository.
func TestFindLooseTriggerSets(t *testing.T) {
	dir := filepath.Join("testdata", "unnamed", "WellDunDun__selftune")
	f, err := Find([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "Research_trigger_eval.json")
	if len(f.Suites) != 0 || len(f.LooseTriggerSets) != 1 || !strings.HasSuffix(f.LooseTriggerSets[0], file) {
		t.Fatalf("Find = suites %q, loose trigger sets %q", f.Suites, f.LooseTriggerSets)
	}
	want := "not run: " + file + " looks like a skill-creator trigger eval set, and a folder search takes trigger sets only in an evals/ folder or beside an evals.json (fix: give the path, e.g. skillgate run " + file + ", or move the file into the skill's evals/ folder)"
	if line := f.SkippedLine(); line != want {
		t.Errorf("SkippedLine:\n%s\nwant\n%s", line, want)
	}
	s, diags := Load(file, Options{})
	if diags.HasErrors() || s == nil {
		t.Fatalf("loading the set by path: %v", diags)
	}
	if s.Name != "WellDunDun__selftune" || s.TriggerTests == nil || len(s.TriggerTests.ShouldTrigger) != 2 || len(s.TriggerTests.ShouldNot) != 1 {
		t.Errorf("suite %q, trigger tests %+v", s.Name, s.TriggerTests)
	}
	// Other tools' JSON files whose names mention triggers but not evals are not read.
	if mightBeTriggerSet("config/triggers.json") || !mightBeTriggerSet("work/trigger-evals.json") {
		t.Error("mightBeTriggerSet")
	}
}

// skill-creator evals files under another name than evals.json (one per command, run by path
// through skill-creator) are named with the way to run them; other JSON files are not read.
func TestFindLooseEvals(t *testing.T) {
	dir := filepath.Join("testdata", "unnamed", "AndrianopoulosGeo__azure-devops-lifecycle")
	f, err := Find([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(dir, "evals", "hotfix-evals.json")
	if len(f.Suites) != 0 || len(f.LooseEvals) != 2 || !strings.HasSuffix(f.LooseEvals[0], first) {
		t.Fatalf("Find = suites %q, loose evals %q", f.Suites, f.LooseEvals)
	}
	want := "not run: " + first + ", " + filepath.Join(dir, "evals", "next-evals.json") + " look like skill-creator evals files, and a folder search takes only files named evals.json (fix: give the path, e.g. skillgate run " + first + ", or rename the file evals/evals.json in the skill's folder)"
	if line := f.SkippedLine(); line != want {
		t.Errorf("SkippedLine:\n%s\nwant\n%s", line, want)
	}
	s, diags := Load(first, Options{})
	if diags.HasErrors() || s == nil || s.Name != "hotfix" || len(s.Tasks) != 2 {
		t.Fatalf("loading by path: %v %+v", diags, s)
	}
	for name, want := range map[string]bool{"hotfix-evals.json": true, "skill_eval.json": true, "evals.json": false, "trigger-evals.json": false, "package.json": false} {
		if got := mightBeEvals(filepath.Join("x", name)); got != want {
			t.Errorf("mightBeEvals(%s) = %v", name, got)
		}
	}
}
