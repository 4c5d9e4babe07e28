package runner

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/skillgate/skillgate/internal/reap"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// workspace is one run's private folder holding the task's inputs.files.
type workspace struct {
	dir     string
	log     io.Writer               // where a workspace that cannot be removed is reported
	inputs  []string                // workspace-relative paths written
	written map[string]writtenInput // size, mtime and hash of each, to detect what the run changed
}

// agentDirs are folders agents install skills and settings into; they are not the run's output.
var agentDirs = map[string]bool{".claude": true, ".codex": true, ".gemini": true, ".agents": true, ".copilot": true,
	".qwen": true, ".opencode": true}

// newWorkspace creates a fresh folder and writes the task's inputs into it. Paths were checked
// when the suite was loaded; they are checked again here because a workspace must never be
// escaped, whatever the loader let through. Without onDisk only the input list is kept: nothing
// that runs will look at the files.
func (r *suiteRun) newWorkspace(t *spec.Task, trial int, withSkill, onDisk bool) (*workspace, error) {
	if !onDisk {
		ws := &workspace{}
		for _, f := range t.Files {
			if _, err := inside("/workspace", f.Path); err != nil {
				return nil, err
			}
			ws.inputs = append(ws.inputs, filepath.ToSlash(f.Path))
		}
		return ws, nil
	}
	root := r.opts.WorkspaceRoot
	if root != "" {
		if err := os.MkdirAll(root, 0o755); err != nil {
			return nil, err
		}
	}
	pattern := reap.WorkspacePrefix() + "*" // a later run removes it if this one is killed
	if r.opts.KeepWorkspaces {
		suffix := ""
		if !withSkill {
			suffix = "-noskill"
		}
		pattern = fmt.Sprintf("%s-%s-%d%s-*", results.Slug(r.suite.Name), results.Slug(t.ID), trial, suffix)
	}
	dir, err := os.MkdirTemp(root, pattern)
	if err != nil {
		return nil, err
	}
	ws := &workspace{dir: dir, log: r.log}
	if len(t.Files) > 0 {
		ws.written = make(map[string]writtenInput, len(t.Files))
	}
	made := map[string]bool{dir: true}
	for _, f := range t.Files {
		if f.Missing != "" {
			continue // the run errors with why (missingInput)
		}
		dest, err := inside(dir, f.Path)
		if err != nil {
			ws.cleanup(false)
			return nil, err
		}
		stored, err := r.inputs.get(f)
		if err != nil {
			ws.cleanup(false)
			return nil, err
		}
		if parent := filepath.Dir(dest); !made[parent] {
			if err := os.MkdirAll(parent, 0o755); err != nil {
				ws.cleanup(false)
				return nil, err
			}
			made[parent] = true
		}
		w, err := r.inputs.copyTo(stored, dest)
		if err != nil {
			ws.cleanup(false)
			return nil, err
		}
		rel := filepath.ToSlash(f.Path)
		ws.inputs = append(ws.inputs, rel)
		ws.written[rel] = w
	}
	return ws, nil
}

// inside resolves a workspace-relative path and refuses anything that leaves the workspace.
func inside(dir, rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) || strings.HasPrefix(filepath.ToSlash(rel), "/") {
		return "", fmt.Errorf("inputs.files path %q must be relative to the workspace", rel)
	}
	dest := filepath.Join(dir, rel)
	if r, err := filepath.Rel(dir, dest); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("inputs.files path %q escapes the workspace", rel)
	}
	return dest, nil
}

// changes lists the files the run added, modified or deleted relative to the inputs, skipping
// the folders agents install skills into.
func (ws *workspace) changes() []results.FileChange {
	if ws.dir == "" {
		return nil
	}
	var out []results.FileChange
	seen := map[string]bool{}
	filepath.WalkDir(ws.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(ws.dir, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if agentDirs[d.Name()] || rel == ".github/skills" || d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			return nil
		}
		seen[rel] = true
		orig, wasInput := ws.written[rel]
		switch {
		case !wasInput:
			out = append(out, results.FileChange{Path: rel, Change: "added", Size: info.Size()})
		case modified(path, info, orig):
			out = append(out, results.FileChange{Path: rel, Change: "modified", Size: info.Size()})
		}
		return nil
	})
	for _, rel := range ws.inputs {
		if !seen[rel] {
			out = append(out, results.FileChange{Path: rel, Change: "deleted"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	recorded := 0
	for i := range out {
		c := &out[i]
		if c.Change == "deleted" || recorded == maxRecordedFiles {
			continue
		}
		data, err := readPrefix(filepath.Join(ws.dir, filepath.FromSlash(c.Path)), results.ChangedFileContentLimit+utf8.UTFMax)
		if err != nil {
			continue
		}
		c.Content, c.Binary = "", false
		if text, ok := results.FileText(data); ok {
			c.Content = text
		} else {
			c.Binary = true
		}
		recorded++
	}
	return out
}

// maxRecordedFiles bounds how many changed files a run records the content of.
const maxRecordedFiles = 20

func readPrefix(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(n)))
}

// modified reports whether an input the run was given differs from what was written: by size,
// or, when its mtime moved, by content.
func modified(path string, info fs.FileInfo, w writtenInput) bool {
	if info.Size() != w.size {
		return true
	}
	if info.ModTime().UnixNano() == w.mtime {
		return false
	}
	sum, err := fileSum(path)
	return err != nil || sum != w.sum
}

func (ws *workspace) cleanup(keep bool) {
	if keep || ws.dir == "" {
		return
	}
	if err := removeTree(ws.dir); err != nil && ws.log != nil {
		fmt.Fprintf(ws.log, "warning: the workspace %s could not be removed (%v); remove it by hand\n", ws.dir, err)
	}
}

// removeTree is reap.RemoveTree; tests replace it with one that fails.
var removeTree = reap.RemoveTree
