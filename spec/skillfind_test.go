package spec

import (
	"path/filepath"
	"testing"

	"github.com/skillgate/skillgate/internal/testtree"
)

// A suite that names its skill and configures no skill folder gets the skill from its own folder
// or one above it, up to the repository root, as waza offers the folder it runs from; none found
// is Config.MissingSkill, never a silent run without the skill.
func TestFindNamedSkill(t *testing.T) {
	skill := func(name string) string { return "---\nname: " + name + "\ndescription: d\n---\nbody\n" }
	suite := func(skill string) string { return "skill: " + skill + "\ntasks:\n  - {id: a, inputs: {prompt: p}}\n" }
	for _, tc := range []struct {
		name  string
		files map[string]string
		suite string // the eval.yaml to load
		want  string // the skill folder found, relative to the repository ("" none)
	}{
		{"in the suite's folder (waza's code-explainer)", map[string]string{"ex/SKILL.md": skill("x"), "ex/eval.yaml": suite("x")}, "ex/eval.yaml", "ex"},
		{"an ancestor", map[string]string{"skills/x/SKILL.md": skill("x"), "skills/x/evals/eval.yaml": suite("x")}, "skills/x/evals/eval.yaml", "skills/x"},
		{"skills/<name> at the root", map[string]string{"skills/x/SKILL.md": skill("x"), "evals/x/eval.yaml": suite("x")}, "evals/x/eval.yaml", "skills/x"},
		{".github/skills/<name>", map[string]string{".github/skills/x/SKILL.md": skill("x"), ".github/evals/x/eval.yaml": suite("x")}, ".github/evals/x/eval.yaml", ".github/skills/x"},
		{"by folder name", map[string]string{"skills/x/SKILL.md": skill("other"), "evals/eval.yaml": suite("x")}, "evals/eval.yaml", "skills/x"},
		{"a SKILL.md of another name", map[string]string{"ex/SKILL.md": skill("y"), "ex/eval.yaml": suite("x")}, "ex/eval.yaml", ""},
		{"not below the root", map[string]string{"skills/x/SKILL.md": skill("x"), "repo/.git/HEAD": "ref", "repo/evals/eval.yaml": suite("x")}, "repo/evals/eval.yaml", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, ok := tc.files["repo/.git/HEAD"]; !ok {
				tc.files[".git/HEAD"] = "ref"
			}
			testtree.Write(t, dir, tc.files)
			s, diags := Load(filepath.Join(dir, tc.suite), Options{})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if tc.want == "" {
				if len(s.Config.SkillDirectories) != 0 || s.Config.MissingSkill != "x" {
					t.Errorf("found %v, missing %q", s.Config.SkillDirectories, s.Config.MissingSkill)
				}
				return
			}
			if want := filepath.Join(dir, tc.want); len(s.Config.SkillDirectories) != 1 || s.Config.SkillDirectories[0] != want || s.Config.MissingSkill != "" {
				t.Errorf("found %v (missing %q), want %s", s.Config.SkillDirectories, s.Config.MissingSkill, want)
			}
		})
	}
	// A configured folder is never second-guessed, and a suite naming no skill gets none.
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{".git/HEAD": "ref", "SKILL.md": skill("x"), "mine/SKILL.md": skill("x"),
		"eval.yaml":   "skill: x\nconfig: {skill_directories: [mine]}\ntasks:\n  - {id: a, inputs: {prompt: p}}\n",
		"n/eval.yaml": "tasks:\n  - {id: a, inputs: {prompt: p}}\n"})
	if s, _ := Load(filepath.Join(dir, "eval.yaml"), Options{}); len(s.Config.SkillDirectories) != 1 || s.Config.SkillDirectories[0] != filepath.Join(dir, "mine") {
		t.Errorf("configured: %v", s.Config.SkillDirectories)
	}
	if s, _ := Load(filepath.Join(dir, "n/eval.yaml"), Options{}); len(s.Config.SkillDirectories) != 0 || s.Config.MissingSkill != "" {
		t.Errorf("no skill named: %v %q", s.Config.SkillDirectories, s.Config.MissingSkill)
	}
}
