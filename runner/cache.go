package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/graders"
	"github.com/skillgate/skillgate/internal/glob"
	"github.com/skillgate/skillgate/internal/runcache"
	"github.com/skillgate/skillgate/internal/safepath"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// CacheOptions turn the run cache on (docs/format.md#the-run-cache): a run whose key is in the
// store is not executed; its recorded run is graded with the current graders.
type CacheOptions struct {
	Store *runcache.Store
	// AgentArgs are the agent arguments given on the command line (they change what the agent
	// does, so they are part of the key).
	AgentArgs []string
}

// runKeyVersion changes when the key's parts change, so old entries are never misread.
// 2: environment values, the agent program and config.cache_inputs.
const runKeyVersion = 2

// runKeyParts is everything that determines what the agent is asked and with what. Grader
// definitions are not part of it: changing a grader regrades recorded runs.
type runKeyParts struct {
	Version      int
	Executor     string
	AgentVersion string
	Model        string
	Settings     map[string]any
	AgentArgs    []string
	Prompt       string
	Files        []string // path and SHA-256 of every input file
	Skills       []string // content hash of every skill folder installed
	Skill        string
	TimeoutMS    int64
	// Env is the name and SHA-256 of each value of inputs.environment (values are never kept).
	Env []string
	// Program is the SHA-256 of the agent program when it lies in the repository.
	Program string
	// CacheInputs are the path and SHA-256 of every file config.cache_inputs matches.
	CacheInputs []string
	WithSkill   bool
	Trigger     bool
	Trial       int
	Stop        string
}

// cacheState is what a suite run computes once for every key.
type cacheState struct {
	once         sync.Once
	on           bool
	agentVersion string
	settings     map[string]any
	skillHashes  []string
	program      string
	cacheInputs  []string
	warnOnce     sync.Once
}

// cacheOn reports whether this suite's runs use the run cache, computing the per-suite parts of
// the key the first time.
func (r *suiteRun) cacheOn(ctx context.Context) bool {
	c := &r.cacheState
	c.once.Do(func() {
		o := r.opts.Cache
		switch name := r.opts.Executor.Name(); {
		case o == nil || o.Store == nil:
			return
		case name == "replay" || name == "mock":
			// Replay already serves recorded runs; a mock run costs less than recording it (a
			// cache entry is a file: 10,000 tasks × 3 took 4× the CPU of the run itself).
			return
		}
		if r.suite.Config.Cache != nil && !*r.suite.Config.Cache {
			return
		}
		settings, err := executorSettings(r.suite)
		if err != nil {
			return
		}
		delete(settings, "judge") // the judge grades; it does not change what the agent does
		c.settings = settings
		if v, ok := r.opts.Executor.(agent.Versioner); ok {
			vctx, cancel := context.WithTimeout(ctx, agent.VersionTimeout+5*time.Second)
			c.agentVersion, _ = v.Version(vctx)
			cancel()
		}
		for _, dir := range r.suite.Config.SkillDirectories {
			c.skillHashes = append(c.skillHashes, filepath.Base(dir)+" "+hashTree(dir))
		}
		if c.program, err = programHash(r.opts.Executor, r.suite.Dir); err == nil {
			c.cacheInputs, err = cacheInputHashes(r.suite)
		}
		if err != nil {
			// What the agent reads cannot be hashed: no recorded run can be known to match.
			fmt.Fprintf(r.log, "warning: %s: the run cache is off for this suite: %v\n", r.suite.Name, err)
			return
		}
		c.on = true
	})
	return c.on
}

// programHash is the SHA-256 of the program the executor runs when that program lies in the
// suite's repository (or, outside any repository, below the suite's folder): an agent script
// the suite ships. Installed CLIs are covered by their version instead.
func programHash(ex agent.Executor, suiteDir string) (string, error) {
	p, ok := ex.(agent.ProgramRunner)
	if !ok {
		return "", nil
	}
	path, err := p.Program()
	if err != nil {
		return "", err
	}
	root := spec.RepositoryRoot(suiteDir)
	if root == "" {
		root = suiteDir
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	if !safepath.Inside(realRoot, real) {
		return "", nil
	}
	sum, err := hashRegularFile(real)
	if err != nil {
		return "", fmt.Errorf("agent program: %w", err)
	}
	return sum, nil
}

// cacheInputHashes hashes every file config.cache_inputs matches (path relative to eval.yaml's
// folder, and content; a matched link to a folder hashes the folder's files).
func cacheInputHashes(s *spec.Suite) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, pattern := range s.Config.CacheInputs {
		files, err := glob.Files(s.Dir, pattern)
		if err != nil {
			return nil, fmt.Errorf("cache_inputs %q: %w", pattern, err)
		}
		if !glob.HasMeta(pattern) {
			// A plain path names one file (or folder); glob.Files lists only what wildcards match.
			files = []string{pattern}
			if !filepath.IsAbs(pattern) {
				files[0] = filepath.Join(s.Dir, pattern)
			}
		}
		for _, f := range files {
			if seen[f] {
				continue
			}
			seen[f] = true
			rel, err := filepath.Rel(s.Dir, f)
			if err != nil {
				rel = f
			}
			fi, err := os.Stat(f)
			var sum string
			switch {
			case errors.Is(err, fs.ErrNotExist):
				sum = "missing" // appears later: the key changes then
			case err != nil:
				return nil, fmt.Errorf("cache_inputs: %w", err)
			case fi.IsDir():
				sum = hashTree(f)
			default:
				if sum, err = hashRegularFile(f); err != nil {
					return nil, fmt.Errorf("cache_inputs: %w", err)
				}
			}
			out = append(out, filepath.ToSlash(rel)+" "+sum)
		}
	}
	slices.Sort(out)
	return out, nil
}

// hashRegularFile streams a regular file (links followed) into SHA-256; anything else (a FIFO
// would block) is refused.
func hashRegularFile(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// runKey is the run key of a request ("" when the cache is off or an input cannot be read).
// ws, when not nil, is the run's workspace: the hashes its inputs were written with are used
// instead of reading every input again.
func (r *suiteRun) runKey(ctx context.Context, req *agent.Request, files []*spec.InputFile, ws *workspace) string {
	if !r.cacheOn(ctx) {
		return ""
	}
	c := &r.cacheState
	p := runKeyParts{
		Version: runKeyVersion, Executor: r.opts.Executor.Name(), AgentVersion: c.agentVersion,
		Model: req.Model, Settings: c.settings, AgentArgs: r.opts.Cache.AgentArgs,
		Prompt: req.Prompt, Skill: req.Skill, TimeoutMS: req.Timeout.Milliseconds(),
		Program: c.program, CacheInputs: c.cacheInputs,
		WithSkill: req.WithSkill, Trigger: req.Trigger, Trial: req.Trial, Stop: req.Stop.KeyString(),
	}
	if len(req.SkillDirs) > 0 {
		p.Skills = c.skillHashes
		if !slices.Equal(req.SkillDirs, r.suite.Config.SkillDirectories) {
			// A task's own skills (a Vally stimulus's).
			p.Skills = nil
			for _, dir := range req.SkillDirs {
				p.Skills = append(p.Skills, filepath.Base(dir)+" "+hashTree(dir))
			}
		}
	}
	for k, v := range req.Environment {
		sum := sha256.Sum256([]byte(v))
		p.Env = append(p.Env, k+" "+hex.EncodeToString(sum[:]))
	}
	slices.Sort(p.Env)
	for _, f := range files {
		rel := filepath.ToSlash(f.Path)
		w, ok := ws.writtenInput(rel)
		sum := w.sum
		if !ok {
			content := []byte(f.Content)
			if !f.HasContent {
				data, err := os.ReadFile(f.Source)
				if err != nil {
					return ""
				}
				content = data
			}
			sum = sha256.Sum256(content)
		}
		p.Files = append(p.Files, rel+" "+hex.EncodeToString(sum[:]))
	}
	return runcache.Key(p)
}

// executeOrReuse serves a task's run from the run cache when its key is there and the graders
// can judge it (the files it changed can be put back), and otherwise executes it and records
// it. It sets the run's key and, when reused, where the run came from.
func (r *suiteRun) executeOrReuse(ctx context.Context, req *agent.Request, t *spec.Task, ws *workspace, run *results.RunResult) (*results.AgentRun, error) {
	key := ""
	if len(t.Setup) == 0 {
		// A workspace prepared by commands (a clone, a build) is not part of the key: not cached.
		kreq := req
		if len(t.Turns) > 1 {
			// A conversation's key holds every turn.
			c := *req
			c.Prompt = strings.Join(t.Turns, "\x00")
			kreq = &c
		}
		key = r.runKey(ctx, kreq, t.Files, ws)
	}
	run.RunKey = key
	if key != "" {
		if e, ok := r.opts.Cache.Store.Get(ctx, key); ok {
			// The files are put back whenever there is a workspace (a kept one shows them too);
			// only graders that read them need them whole.
			restored := ws.dir == "" || restoreChanges(ws, e.Run.ChangedFiles)
			if restored || !graders.ReadsWorkspace(t.Graders) {
				run.Reused = &results.Reuse{Key: key, Commit: e.Commit, RecordedAt: e.RecordedAt}
				return &e.Run, agentErrorOf(&e.Run)
			}
		}
	}
	agentRun, err := r.converse(ctx, req, t)
	if key != "" && err == nil && agentRun != nil && ctx.Err() == nil {
		if agentRun.ChangedFiles == nil {
			agentRun.ChangedFiles = ws.changes()
		}
		r.record(key, agentRun)
	}
	return agentRun, err
}

// executeOrReuseTrigger is executeOrReuse for a trigger prompt.
func (r *suiteRun) executeOrReuseTrigger(ctx context.Context, req *agent.Request, tr *results.TriggerResult) (*results.AgentRun, error) {
	key := r.runKey(ctx, req, nil, nil)
	tr.RunKey = key
	if key != "" {
		if e, ok := r.opts.Cache.Store.Get(ctx, key); ok {
			tr.Reused = &results.Reuse{Key: key, Commit: e.Commit, RecordedAt: e.RecordedAt}
			return &e.Run, agentErrorOf(&e.Run)
		}
	}
	agentRun, err := r.execute(ctx, req)
	if key != "" && err == nil && agentRun != nil && ctx.Err() == nil {
		r.record(key, agentRun)
	}
	return agentRun, err
}

func (r *suiteRun) record(key string, run *results.AgentRun) {
	e := &runcache.Entry{Key: key, RecordedAt: r.opts.Now().UTC(), Run: *run}
	if err := r.opts.Cache.Store.Put(e); err != nil {
		r.cacheState.warnOnce.Do(func() {
			fmt.Fprintf(r.log, "warning: run cache %s: %v (runs are executed but not recorded)\n", r.opts.Cache.Store.Dir(), err)
		})
	}
}

// agentErrorOf is a recorded run's agent error (only successful runs are recorded, but an entry
// written by hand or another version may hold one).
func agentErrorOf(run *results.AgentRun) error {
	if run.AgentError == "" {
		return nil
	}
	return &recordedError{run.AgentError}
}

type recordedError struct{ msg string }

func (e *recordedError) Error() string { return e.msg }

// restoreChanges puts a recorded run's changed files back into a fresh workspace, so graders
// that read files see what the agent left. It reports false when a change cannot be restored
// whole (binary, longer than what was recorded, or beyond the recorded files): the run is then
// executed instead of reused.
func restoreChanges(ws *workspace, changes []results.FileChange) bool {
	for _, c := range changes {
		if c.Change != "deleted" && (c.Binary || int64(len(c.Content)) != c.Size) {
			return false
		}
	}
	for _, c := range changes {
		dest, err := inside(ws.dir, c.Path)
		if err != nil {
			return false
		}
		if c.Change == "deleted" {
			if err := os.Remove(dest); err != nil && !os.IsNotExist(err) {
				return false
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return false
		}
		if err := os.WriteFile(dest, []byte(c.Content), 0o644); err != nil {
			return false
		}
	}
	return true
}
