package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/testtree"
)

const creatorData = "testdata/skillcreator"

func loadCreator(t *testing.T, rel string) (*Suite, Diagnostics) {
	t.Helper()
	root, _ := filepath.Abs(filepath.Join(creatorData, strings.SplitN(rel, "/", 2)[0]))
	s, diags := Load(filepath.Join(creatorData, rel), Options{SearchRoot: root})
	if diags.HasErrors() {
		t.Fatalf("%s: %v", rel, diags)
	}
	return s, diags
}

func diagText(ds Diagnostics) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.Error() + "\n")
	}
	return b.String()
}

// Real evals.json files load as suites: one task per eval, the skill related to the file as
// skill-creator relates it, checks split between built-in graders and one judge grader.
func TestLoadSkillCreator(t *testing.T) {
	for _, tc := range []struct {
		file                string
		name, skill, skillD string // suite name, skill name, skill folder (relative to the repository)
		tasks               int
		firstID             string
		judged              int // judged checks of the first task
		triggers            [2]int
		runs                int
		warn                string
	}{
		// skill_name differs from the frontmatter name: the folder above evals/ wins.
		{"0x2kNJ__cpo/evals/evals.json", "product-strategy", "cpo", ".", 3, "0", 9, [2]int{}, 0, ""},
		// evals/ at the repository root, the skill under skills/: found by skill_name.
		{"AaronLPS__loop-builder/evals/evals.json", "loop-builder", "loop-builder", "skills/loop-builder", 9, "1", 10, [2]int{}, 0, ""},
		// The trigger set beside evals.json joins the suite; the skill is matched by name.
		{"xpepper__tcr-skill/evals/evals.json", "tcr", "tcr", "tcr", 3, "1", 5, [2]int{5, 15}, 3, ""},
		// Extra eval keys are ignored with one warning each.
		{"A-cat-with-carrots__ai-short-drama-skill/evals/evals.json", "ai-short-drama", "ai-short-drama", ".", 1, "1", 21, [2]int{}, 0, `"non_interactive_overrides" is not a key of skill-creator's evals`},
		// An evals.json that is a trigger set (should_trigger / should_not_trigger lists).
		{"UrsaMU__ursamu-dev-skill/skill/evals/evals.json", "ursamu-dev", "ursamu-dev", "skill", 0, "", 0, [2]int{10, 10}, 3, ""},
		// The only SKILL.md of the repository; a key given twice in the JSON: the later is used.
		{"ASER-ho__loji-perspective/research/evals/trigger_queries.json", "Loji-skill", "Loji-skill", ".", 0, "", 0, [2]int{10, 10}, 3, `key "should_not_trigger" is given twice (again at line 78)`},
		// Trigger queries wrapped in `evals` ({skill_name, evals: [{id, query, should_trigger}]}):
		// a trigger set, not evals without prompts.
		{"arsity__research-skill/evals/trigger_evals.json", "research", "research", "skills/research", 0, "", 0, [2]int{5, 5}, 3, ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s, diags := loadCreator(t, tc.file)
			repo, _ := filepath.Abs(filepath.Join(creatorData, strings.SplitN(tc.file, "/", 2)[0]))
			if s.Format != FormatSkillCreator || s.Name != tc.name || s.Skill != tc.skill {
				t.Errorf("format %q name %q skill %q, want %q %q", s.Format, s.Name, s.Skill, tc.name, tc.skill)
			}
			if want := filepath.Join(repo, tc.skillD); len(s.Config.SkillDirectories) != 1 || s.Config.SkillDirectories[0] != want {
				t.Errorf("skill directories %v, want %s", s.Config.SkillDirectories, want)
			}
			if len(s.Tasks) != tc.tasks {
				t.Fatalf("%d tasks, want %d", len(s.Tasks), tc.tasks)
			}
			if tc.tasks > 0 {
				first := s.Tasks[0]
				if first.ID != tc.firstID {
					t.Errorf("first id %q, want %q", first.ID, tc.firstID)
				}
				judged := 0
				for _, g := range first.Graders {
					if g.Type == JudgedChecksType {
						judged = int(g.Weight)
					}
				}
				if judged != tc.judged {
					t.Errorf("judged checks %d, want %d: %+v", judged, tc.judged, first.Graders)
				}
			}
			tt := s.TriggerTests
			got := [2]int{}
			if tt != nil {
				got = [2]int{len(tt.ShouldTrigger), len(tt.ShouldNot)}
				if tt.Runs != tc.runs || tt.RateThreshold != DefaultTriggerRateThreshold {
					t.Errorf("runs %d threshold %v", tt.Runs, tt.RateThreshold)
				}
			}
			if got != tc.triggers {
				t.Errorf("trigger prompts %v, want %v", got, tc.triggers)
			}
			if s.Config.TriggerEarlyStop == nil || s.Config.TriggerEarlyStop.ToolCallCount != 1 {
				t.Errorf("trigger runs stop at the first tool call: %+v", s.Config.TriggerEarlyStop)
			}
			if tc.warn != "" && !strings.Contains(diagText(diags), tc.warn) {
				t.Errorf("no warning %q:\n%s", tc.warn, diagText(diags))
			}
		})
	}
}

// A file of another shape given by name is an error whose fix names the shape its name promises.
func TestSkillCreatorOtherShapeGivenByName(t *testing.T) {
	for _, tc := range []struct{ file, note, fix string }{
		{"16892434__seedance-2.0/evals/evals.json", "this file has `cases`, `updated`, `version`", `give evals.json the shape {"skill_name"`},
		// One file holding the trigger queries of 95 skills, keyed by skill name.
		{"kujolang__kujo-skills/evals/trigger-queries.json", "this file has `kujo-core-language`, `kujo-tool-building`", `give the trigger eval set the shape [{"query"`},
	} {
		t.Run(tc.file, func(t *testing.T) {
			_, diags := Load(filepath.Join(creatorData, tc.file), Options{})
			if errs := diags.Errors(); len(errs) != 1 || !strings.Contains(errs[0].Message, tc.note) || !strings.HasPrefix(errs[0].Fix, tc.fix) {
				t.Errorf("errors %v", errs)
			}
		})
	}
}

// Input files resolve against the skill folder, the evals folder, the folder above evals/ (a
// plugin's root) and the repository's root, as authors write them; each is copied into the
// workspace at the path written, and the prompt names them as skill-creator's executor does.
func TestSkillCreatorFiles(t *testing.T) {
	for _, tc := range []struct {
		file    string
		task    int
		sources []string // relative to the repository
		prompt  string
	}{
		// Next to evals.json.
		{"jamesbuckett__skill-improve-quality/evals/evals.json", 3, []string{"evals/fixtures/index.html", "evals/answer-key.json"}, "fixtures/index.html, answer-key.json"},
		// evals/ at a plugin's root, the skill under skills/design: paths from the plugin's root.
		{"Adityaraj0421__naksha-studio/evals/evals.json", 0, []string{"commands/email-audit.md", "skills/design/references/email-copywriter.md"}, "commands/email-audit.md, skills/design/references/email-copywriter.md"},
		// evals/ inside the skill, the path from the repository's root (the prompt says ./_assets/…).
		{"abuxton__Skills/skills/do-nothing-scripting/evals/evals.json", 0, []string{"_assets/asciinema/skills.cast"}, "_assets/asciinema/skills.cast"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s, diags := loadCreator(t, tc.file)
			if strings.Contains(diagText(diags), "input file") {
				t.Errorf("a file is reported missing:\n%s", diagText(diags))
			}
			repo, _ := filepath.Abs(filepath.Join(creatorData, strings.SplitN(tc.file, "/", 2)[0]))
			task := s.Tasks[tc.task]
			if len(task.Files) != len(tc.sources) {
				t.Fatalf("files %+v", task.Files)
			}
			for i, f := range task.Files {
				if f.Missing != "" || f.Source != filepath.Join(repo, tc.sources[i]) {
					t.Errorf("file %+v, want the source %s", f, tc.sources[i])
				}
			}
			if !strings.HasSuffix(task.Prompt, "\n\nInput files: "+tc.prompt) {
				t.Errorf("prompt %q", task.Prompt)
			}
		})
	}
	s, _ := loadCreator(t, "jamesbuckett__skill-improve-quality/evals/evals.json")
	if last := s.Tasks[3]; len(last.Graders) != 0 {
		t.Errorf("a prompt-only eval has no graders: %+v", last.Graders)
	}
}

// Checks in every shape of the notes: a typed object that gives its literal runs as the built-in
// grader; prose (strings, {text}, a `type` without a literal, a shell pipeline) goes to the one
// judged_checks grader. Missing files, extra keys, a bare list and string ids work.
func TestSkillCreatorChecks(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		"my-skill/SKILL.md": "---\nname: my-skill\ndescription: d\n---\nbody\n",
		"my-skill/evals/evals.json": `[
  {"id": "a", "prompt": "p1", "slug": "x", "files": ["missing.txt"], "expectations": [
    "Says hello",
    {"text": "Mentions the plan"},
    {"name": "greets", "description": "has the greeting", "type": "contains", "value": "Hello"},
    {"name": "no-error", "type": "not_contains", "expected": "Traceback"},
    {"id": 7, "text": "names the file", "type": "regex", "pattern": "report\\.md"},
    {"text": "wrote it", "type": "file_exists", "path": "out/report.md"},
    {"text": "looks good", "type": "contains"},
    {"name": "lines", "check": "wc -l out.txt | grep 3"},
    {"id": "k1", "kind": "process_check", "text": "calls WebSearch"}
  ]},
  {"id": "a", "prompt": "p2", "slug": "y"},
  {"prompt": "  "}
]`,
	})
	s, diags := Load(filepath.Join(dir, "my-skill/evals/evals.json"), Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	text := diagText(diags)
	for _, want := range []string{
		`evals.json:2:31: warning: [0].slug: "slug" is not a key of skill-creator's evals; it is ignored (in 1 more evals too)`,
		`[0].files[0]: input file "missing.txt" is not in the skill folder, the evals folder, the folder above it or the repository root; the eval's runs error`,
		`[1].id: eval id "a" is used twice`,
		`[2].prompt: the eval has no prompt; it is left out`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	if len(s.Tasks) != 2 || s.Tasks[1].ID != "a-2" || s.Skill != "my-skill" {
		t.Fatalf("tasks %+v", s.Tasks)
	}
	var got []string
	for _, g := range s.Tasks[0].Graders {
		got = append(got, g.Name+":"+g.Type)
	}
	want := "greets:text no-error:text 7:text check-6:file checks:judged_checks"
	if strings.Join(got, " ") != want {
		t.Errorf("graders %s, want %s", strings.Join(got, " "), want)
	}
	judged := s.Tasks[0].Graders[4]
	if judged.Weight != 5 {
		t.Errorf("judged weight %v", judged.Weight)
	}
	if p := judged.ConfigAt("checks", 1); p.Line != 4 {
		t.Errorf("the second judged check is at %v, want line 4", p)
	}
	if s.Tasks[0].Files[0].Missing == "" {
		t.Errorf("the missing file is not marked")
	}
}

// Trigger eval sets in each shape: a list, {queries, runs_per_query, trigger_rate_threshold},
// {evals: [...]}, should_trigger / should_not_trigger lists of strings; errors in a query are
// warnings.
func TestTriggerSetShapes(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		"SKILL.md": "---\nname: s\ndescription: d\n---\n",
		"evals/eval_queries.json": `{"skill_name": "s", "runs_per_query": 5, "trigger_rate_threshold": 0.6, "queries": [
  {"query": "q1", "should_trigger": true, "why": "named"},
  {"query": "q2", "should_trigger": false},
  {"query": "q3"}
]}`,
		"evals/train_queries.json": `{"should_trigger": ["s1", {"prompt": "s2", "id": "t-2"}], "should_not_trigger": ["n1"]}`,
		"evals/triggers.json":      `[{"query": "l1", "should_trigger": true, "note": "x"}]`,
		// Queries written as `prompt` inside `evals`: trigger queries, never tasks.
		"evals/trigger-evals.json": `{"evals": [{"prompt": "e1", "should_trigger": true}]}`,
		"evals/other-queries.json": `{"version": 1}`,
		"evals/trigger-bad.json":   `{"runs_per_query": 0, "queries": [{"query": "z", "should_trigger": true}]}`,
	})
	s, diags := Load(filepath.Join(dir, "evals/eval_queries.json"), Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	tt := s.TriggerTests
	if tt == nil || tt.Runs != 5 || tt.RateThreshold != 0.6 {
		t.Fatalf("trigger tests %+v", tt)
	}
	var ids []string
	for _, p := range append(tt.ShouldTrigger, tt.ShouldNot...) {
		ids = append(ids, p.ID+"="+p.Prompt)
	}
	if got := strings.Join(ids, " "); got != "should-1=q1 should-2=s1 t-2=s2 should-4=z should-5=e1 should-6=l1 should-not-1=q2 should-not-2=n1" {
		t.Errorf("prompts %s", got)
	}
	text := diagText(diags)
	for _, want := range []string{"queries[2].should_trigger: the query says neither; it is left out", "runs_per_query 0 is not a whole number ≥ 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	if len(tt.Files) != 5 || len(s.Tasks) != 0 {
		t.Errorf("files %v, tasks %d", tt.Files, len(s.Tasks))
	}
}

// Files that are not the format fail with one error naming what the file has; a syntax error is
// positioned.
func TestSkillCreatorBroken(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		"a/evals.json": "{\"evals\": [\n  {\"prompt\" \"x\"}\n]}",
		"b/evals.json": `{"evals": []}`,
		"c/evals.json": ``,
	})
	for _, tc := range []struct{ file, want string }{
		{"a/evals.json", "evals.json:2:"},
		{"b/evals.json", "nothing to run"},
		{"c/evals.json", "the file is empty"},
	} {
		_, diags := Load(filepath.Join(dir, tc.file), Options{})
		if !diags.HasErrors() || !strings.Contains(diagText(diags), tc.want) {
			t.Errorf("%s: %s", tc.file, diagText(diags))
		}
	}
}

// FuzzSkillCreator: no evals.json or trigger eval set crashes the loader or yields an
// unpositioned diagnostic; whatever loads has prompts and ids.
func FuzzSkillCreator(f *testing.F) {
	for _, rel := range []string{"0x2kNJ__cpo/evals/evals.json", "xpepper__tcr-skill/evals/trigger_eval.json",
		"UrsaMU__ursamu-dev-skill/skill/evals/evals.json", "ASER-ho__loji-perspective/research/evals/trigger_queries.json",
		"arsity__research-skill/evals/trigger_evals.json", "abuxton__Skills/skills/do-nothing-scripting/evals/evals.json"} {
		data, err := os.ReadFile(filepath.Join(creatorData, rel))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`[{"id": 1.5, "prompt": "p", "files": "a", "assertions": [{"type": "regex", "value": "("}, 3, null]}]`))
	f.Add([]byte(`{"queries": [{"query": "q", "should_trigger": "yes"}], "runs_per_query": -1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		testtree.WriteSame(t, dir, data, "evals/evals.json", "evals/trigger-evals.json", "SKILL.md", "evals/a")
		for _, name := range []string{"evals/evals.json", "evals/trigger-evals.json"} {
			s, diags := Load(filepath.Join(dir, name), Options{})
			if s == nil {
				t.Fatal("nil suite")
			}
			for _, d := range diags {
				if d.Pos.File == "" || d.Message == "" {
					t.Fatalf("unpositioned diagnostic %q", d.Error())
				}
			}
			if diags.HasErrors() {
				continue
			}
			for _, task := range s.Tasks {
				if task.ID == "" || strings.TrimSpace(task.Prompt) == "" {
					t.Fatalf("task %+v", task)
				}
			}
		}
	})
}

// One evals.json for several skills, each eval naming its own (`skill` in
// Arindam200/nebius-skills, `target_skill` in greghavens/vcf-9-x-skills; neither repository has
// a licence, so the shape is rebuilt here): each eval's runs install the skill it names, its
// files are looked up there first, and the suite needs no skill of its own.
func TestSkillCreatorEvalOwnSkill(t *testing.T) {
	for _, tc := range []struct {
		name     string
		evals    string
		own      []string // each task's own skill folder ("" for the suite's)
		suiteDir string   // the suite's skill folder
		warn     string   // a warning that must appear ("" for none about skills)
	}{
		{"skill", `{"skill_name": "col", "evals": [{"id": 0, "skill": "ft", "prompt": "p", "files": ["data.jsonl"]}, {"id": 1, "skill": "Endpoint", "prompt": "q"}]}`,
			[]string{"skills/ft", "skills/ep"}, "", ""},
		{"target_skill", `{"evals": [{"id": 0, "target_skill": "ep", "prompt": "p"}]}`, []string{"skills/ep"}, "", ""},
		{"a name not found", `{"skill_name": "ft", "evals": [{"id": 0, "skill": "nope", "prompt": "p"}, {"id": 1, "skill": "ep", "prompt": "q"}]}`,
			[]string{"", "skills/ep"}, "skills/ft", `evals[0].skill: no SKILL.md named "nope" in the repository: this eval's runs of a real agent install the suite's skill`},
		{"the suite's own skill", `{"skill_name": "ft", "evals": [{"id": 0, "skill": "ft", "prompt": "p"}]}`, []string{""}, "skills/ft", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Write(t, dir, map[string]string{
				".git/HEAD":            "ref: refs/heads/main\n",
				"skills/ft/SKILL.md":   "---\nname: ft\ndescription: d\n---\n",
				"skills/ft/data.jsonl": "{}\n",
				"skills/ep/SKILL.md":   "---\nname: Endpoint\ndescription: d\n---\n",
				"evals/evals.json":     tc.evals,
			})
			s, diags := Load(filepath.Join(dir, "evals/evals.json"), Options{})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			text := diagText(diags)
			if strings.Contains(text, "is not a key") || (tc.warn == "" && strings.Contains(text, "SKILL.md")) || !strings.Contains(text, tc.warn) {
				t.Errorf("warnings:\n%s", text)
			}
			want := ""
			if tc.suiteDir != "" {
				want = filepath.Join(dir, tc.suiteDir)
			}
			if got := strings.Join(s.Config.SkillDirectories, ","); got != want || (want == "" && s.Config.MissingSkill != "") {
				t.Errorf("suite skill %q (missing %q), want %q", got, s.Config.MissingSkill, want)
			}
			for i, own := range tc.own {
				task := s.Tasks[i]
				if got := strings.Join(task.SkillDirectories, ","); task.OwnSkills != (own != "") || (own != "" && got != filepath.Join(dir, own)) {
					t.Errorf("task %s: own %v %q, want %q", task.ID, task.OwnSkills, got, own)
				}
				for _, f := range task.Files {
					if f.Source != filepath.Join(dir, "skills/ft", f.Path) {
						t.Errorf("task %s: file %+v", task.ID, f)
					}
				}
			}
		})
	}
}

// A routing set names, in should_trigger, the skill each query should reach (the shape of
// AndrianopoulosGeo/azure-devops-lifecycle's evals/trigger-evals.json, MIT; excerpt rebuilt):
// the query should trigger the suite's skill when it names it and not when it names another;
// beside no skill, the warning says what the value is.
func TestTriggerSetNamesSkill(t *testing.T) {
	set := `[{"query": "is this project set up?", "should_trigger": "validate-env", "should_not_trigger": ["init-project"]},
 {"query": "bootstrap this repo", "should_trigger": "init-project", "should_not_trigger": ["validate-env"]}]`
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string // should=… ids, or the warning
	}{
		{"beside the skill", map[string]string{"validate-env/SKILL.md": "---\nname: validate-env\ndescription: d\n---\n", "validate-env/evals/trigger-evals.json": set},
			"should:is this project set up? not:bootstrap this repo"},
		{"beside no skill", map[string]string{"evals/trigger-evals.json": set},
			`[0].should_trigger: should_trigger names a skill ("validate-env"), not true or false, and this suite tests no skill; the query is left out`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Write(t, dir, tc.files)
			file := "evals/trigger-evals.json"
			if _, ok := tc.files["validate-env/evals/trigger-evals.json"]; ok {
				file = "validate-env/" + file
			}
			s, diags := Load(filepath.Join(dir, file), Options{SearchRoot: dir})
			got := diagText(diags)
			if s != nil && s.TriggerTests != nil {
				var parts []string
				for _, p := range s.TriggerTests.ShouldTrigger {
					parts = append(parts, "should:"+p.Prompt)
				}
				for _, p := range s.TriggerTests.ShouldNot {
					parts = append(parts, "not:"+p.Prompt)
				}
				got = strings.Join(parts, " ")
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// A file whose every entry is left out says so, instead of "no eval and no trigger query".
func TestSkillCreatorAllLeftOut(t *testing.T) {
	for _, c := range []struct{ name, file, content, want string }{
		{"queries", "trigger-evals.json", `[{"query": "a", "should_trigger": "deploy"}, {"query": "b"}]`,
			"every eval and trigger query of the file was left out (2, each named in a warning): nothing to run"},
		{"evals", "evals.json", `{"skill_name": "s", "evals": [{"id": 1, "prompt": ""}, {"id": 2, "prompt": " "}]}`,
			"every eval and trigger query of the file was left out (2, each named in a warning): nothing to run"},
		{"empty", "evals.json", `{"skill_name": "s", "evals": []}`,
			"the file has no eval with a prompt and no trigger query: nothing to run"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "evals")
			os.MkdirAll(dir, 0o755)
			file := filepath.Join(dir, c.file)
			os.WriteFile(file, []byte(c.content), 0o644)
			_, diags := Load(file, Options{})
			if !diags.HasErrors() || !strings.Contains(diags.Errors()[0].Error(), c.want) {
				t.Errorf("diags:\n%s", render(diags))
			}
		})
	}
}
