package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/internal/childenv"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// locator turns positions into results locations relative to the repository root (the folder
// holding .git above the suite), or to the working directory outside a repository, so SARIF and
// annotations can point at files wherever the results are read.
type locator struct {
	root string
	once sync.Once
	from string
}

func newLocator(suiteDir string) *locator { return &locator{from: suiteDir} }

func (l *locator) location(p spec.Pos) *results.Location {
	if p.File == "" {
		return nil
	}
	l.once.Do(func() {
		if root, ok := repoRoot(l.from); ok {
			l.root = root
		} else {
			l.root, _ = os.Getwd()
		}
	})
	file := p.File
	if rel, err := filepath.Rel(l.root, file); err == nil && !strings.HasPrefix(rel, "..") {
		file = rel
	}
	return &results.Location{File: filepath.ToSlash(file), Line: p.Line, Col: p.Col}
}

// repoRoot finds the nearest folder at or above dir that holds .git (a folder or a worktree file).
func repoRoot(dir string) (string, bool) {
	dir, _ = filepath.Abs(dir)
	for {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// provenance records what produced these results (docs/results.md#provenance).
func (r *suiteRun) provenance(ctx context.Context) *results.Provenance {
	p := &results.Provenance{
		SkillgateVersion: r.opts.Version,
		Executor:         r.opts.Executor.Name(),
		Model:            r.model(),
		JudgeModel:       r.suite.Config.JudgeModel,
		SuiteHash:        hashFiles(r.suite.Dir, r.suite.Files),
	}
	if models, hash := r.opts.Graders.JudgeProvenance(); models != "" {
		p.JudgeModel, p.JudgePromptHash = models, hash
	}
	if loc := r.locs.location(spec.Pos{File: r.suite.File}); loc != nil {
		p.SuiteFile = loc.File
	}
	if len(r.suite.Config.SkillDirectories) > 0 {
		p.SkillHashes = map[string]string{}
		for _, dir := range r.suite.Config.SkillDirectories {
			key := dir
			if loc := r.locs.location(spec.Pos{File: dir}); loc != nil {
				key = loc.File
			}
			p.SkillHashes[key] = hashTree(dir)
		}
	}
	if root, ok := repoRoot(r.suite.Dir); ok && r.opts.RepoRoot == "" {
		p.GitCommit, p.GitDirty = gitState(ctx, root)
	}
	if v, ok := r.opts.Executor.(agent.Versioner); ok {
		// The executor's own bound (agent.VersionTimeout) applies: a shorter one here dropped
		// the version of slow-starting CLIs (gemini, a first copilot) without a word.
		vctx, cancel := context.WithTimeout(ctx, agent.VersionTimeout+5*time.Second)
		version, err := v.Version(vctx)
		cancel()
		if err == nil {
			p.AgentVersion = version
		} else if ctx.Err() == nil {
			fmt.Fprintf(r.log, "warning: the agent's version is not recorded in provenance: %v\n", err)
		}
	}
	return p
}

// hashFiles is the SHA-256 of the files' relative paths and contents, in path order.
func hashFiles(base string, files []string) string {
	sorted := append([]string(nil), files...)
	sort.Strings(sorted)
	h := sha256.New()
	for _, f := range sorted {
		rel, err := filepath.Rel(base, f)
		if err != nil {
			rel = f
		}
		io.WriteString(h, filepath.ToSlash(rel)+"\x00")
		if data, err := os.ReadFile(f); err == nil {
			h.Write(data)
		}
		h.Write([]byte{0})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// hashTree hashes every regular file below dir (skipping .git).
func hashTree(dir string) string {
	var files []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			files = append(files, path)
		}
		return nil
	})
	return hashFiles(dir, files)
}

// gitState returns HEAD's commit and whether the work tree has changes. It uses the git binary
// when present and falls back to reading .git directly (the Action image has no git).
func gitState(ctx context.Context, root string) (commit string, dirty bool) {
	if _, err := exec.LookPath("git"); err == nil {
		git := func(args ...string) ([]byte, error) {
			cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...)
			cmd.Env = childenv.For("")
			return cmd.Output()
		}
		out, err := git("rev-parse", "HEAD")
		if err == nil {
			commit = strings.TrimSpace(string(out))
			st, err := git("status", "--porcelain", "--untracked-files=no")
			dirty = err == nil && len(bytes.TrimSpace(st)) > 0
			return commit, dirty
		}
	}
	return readHead(root), false
}

// readHead resolves HEAD without git: a detached SHA, a loose ref, or a packed ref.
func readHead(root string) string {
	gitDir := filepath.Join(root, ".git")
	if data, err := os.ReadFile(gitDir); err == nil && bytes.HasPrefix(data, []byte("gitdir:")) {
		gitDir = strings.TrimSpace(string(data[len("gitdir:"):]))
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(root, gitDir)
		}
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !ok {
		return strings.TrimSpace(string(head))
	}
	commonDir := gitDir
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		commonDir = filepath.Join(gitDir, strings.TrimSpace(string(data)))
	}
	for _, dir := range []string{gitDir, commonDir} {
		if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ref))); err == nil {
			return strings.TrimSpace(string(data))
		}
	}
	packed, _ := os.ReadFile(filepath.Join(commonDir, "packed-refs"))
	for _, line := range strings.Split(string(packed), "\n") {
		if sha, name, ok := strings.Cut(line, " "); ok && name == ref {
			return sha
		}
	}
	return ""
}
