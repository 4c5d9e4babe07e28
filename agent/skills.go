package agent

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillgate/skillgate/results"
)

// installedSkill is a skill copied into a workspace.
type installedSkill struct {
	Name string
	// Dir is the skill's folder relative to the workspace, slash-separated (".claude/skills/x").
	Dir string
}

// skillFolders expands Request.SkillDirs: each entry is a skill folder (it holds SKILL.md) or a
// folder whose direct children are skill folders.
func skillFolders(dirs []string) ([]string, error) {
	var folders []string
	for _, dir := range dirs {
		if isSkillFolder(dir) {
			folders = append(folders, dir)
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("skill directory %s: %w", dir, err)
		}
		found := 0
		for _, e := range entries {
			child := filepath.Join(dir, e.Name())
			if isDir(child) && isSkillFolder(child) {
				folders = append(folders, child)
				found++
			}
		}
		if found == 0 {
			return nil, fmt.Errorf("skill directory %s has no SKILL.md and no child folder with one", dir)
		}
	}
	return folders, nil
}

func isSkillFolder(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "SKILL.md"))
	return err == nil && st.Mode().IsRegular()
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// installSkills copies each skill into <workspace>/<skillsDir>/<folder name>/, where the agent
// discovers skills, replacing a folder of the same name the task may have put there. Copies, not
// links, so an agent editing a skill cannot change the repository's files.
func installSkills(workspace, skillsDir string, dirs []string) ([]installedSkill, error) {
	folders, err := skillFolders(dirs)
	if err != nil {
		return nil, err
	}
	seen := map[string]string{}
	var installed []installedSkill
	for _, src := range folders {
		name := filepath.Base(filepath.Clean(src))
		if prev, dup := seen[name]; dup {
			return nil, fmt.Errorf("two skills are named %q (%s and %s); skill folder names must be unique", name, prev, src)
		}
		seen[name] = src
		rel := filepath.Join(skillsDir, name)
		dest := filepath.Join(workspace, rel)
		if err := os.RemoveAll(dest); err != nil {
			return nil, err
		}
		if err := copyTree(src, dest); err != nil {
			return nil, fmt.Errorf("installing skill %s: %w", name, err)
		}
		installed = append(installed, installedSkill{Name: name, Dir: filepath.ToSlash(rel)})
	}
	return installed, nil
}

// copyTree copies a folder. Symbolic links to files are copied as files; links to folders are
// skipped (they could loop). .git, node_modules and .skillgate (an output folder: a skill found
// in the suite's own folder may hold it) are no part of a skill and are not copied.
func copyTree(src, dest string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != src && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == ".skillgate") {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dest, rel)
		info, err := os.Stat(path) // follows links
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case info.IsDir(): // a link to a folder
			return nil
		case info.Mode().IsRegular():
			return copyFile(path, target, info.Mode().Perm())
		}
		return nil
	})
}

func copyFile(src, dest string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dest, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm|0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// attributeSkills completes skill invocations with what the executor knows: an invocation the
// agent reported without a folder gets the folder it was installed in, and folders inside the
// workspace become workspace-relative, as in results files.
func attributeSkills(run *results.AgentRun, workspace string, installed []installedSkill) {
	dirs := map[string]string{}
	for _, s := range installed {
		dirs[s.Name] = s.Dir
	}
	changed := false
	for i := range run.Transcript {
		ev := &run.Transcript[i]
		if ev.Type != results.EventSkillInvocation {
			continue
		}
		switch {
		case ev.Path == "" && dirs[ev.Name] != "":
			ev.Path = dirs[ev.Name]
			changed = true
		case ev.Path != "" && workspace != "":
			if rel, ok := workspaceRelative(workspace, ev.Path); ok {
				ev.Path = rel
				changed = true
			}
		}
	}
	if changed {
		d := run.SessionDigest
		run.SessionDigest = results.Digest(run.Transcript, d.Usage, d.SessionID)
	}
}

func workspaceRelative(workspace, path string) (string, bool) {
	if !filepath.IsAbs(path) {
		return "", false
	}
	// A relative workspace (a relative --out) against the absolute path the agent reports:
	// Rel needs both absolute, or the machine's path leaks into results.
	workspace, err := filepath.Abs(workspace)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(workspace, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
