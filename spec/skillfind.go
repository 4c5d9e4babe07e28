package spec

import (
	"path/filepath"
	"strings"
)

// findNamedSkill installs the skill a suite names when it configures no skill folder
// (docs/format.md#skills): waza always offers the folder it runs from as a skill folder, so a
// suite without skill_directories (most public ones) gets its skill there; skillgate looks for
// it in the suite's folder and each folder above it up to the repository root (else the folder
// the search started from): a SKILL.md there whose frontmatter name (or folder name) is the
// skill's, or one in a child folder of that name (also under skills/, .claude/skills,
// .github/skills, .agents/skills). None found: Config.MissingSkill names it, `run` warns before
// any agent starts and `doctor` fails.
func findNamedSkill(s *Suite, root string) {
	name := strings.TrimSpace(s.Skill)
	c := &s.Config
	if name == "" || len(c.SkillDirectories) > 0 || len(c.MissingSkillDirectories) > 0 || s.Format == FormatSkillCreator {
		return
	}
	if r := RepositoryRoot(s.Dir); r != "" {
		root = r
	}
	if root == "" || !within(s.Dir, root) {
		root = s.Dir
	}
	for dir := s.Dir; ; dir = filepath.Dir(dir) {
		if found := skillAt(dir, name); found != "" {
			c.SkillDirectories = []string{found}
			return
		}
		if dir == root || filepath.Dir(dir) == dir {
			break
		}
	}
	c.MissingSkill = name
}

// skillAt is the folder at or below dir that holds the named skill's SKILL.md, or "".
func skillAt(dir, name string) string {
	candidates := []string{dir}
	for _, sub := range []string{".", "skills", ".claude/skills", ".github/skills", ".agents/skills"} {
		candidates = append(candidates, filepath.Join(dir, filepath.FromSlash(sub), name))
	}
	for _, c := range candidates {
		file := filepath.Join(c, "SKILL.md")
		if !isFile(file) {
			continue
		}
		if skillName(file) == name || filepath.Base(c) == name {
			return c
		}
	}
	return ""
}
