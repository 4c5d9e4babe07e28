package action

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/skillgate/skillgate/internal/childenv"
	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/results"
)

// Limits on a source tree unpacked for a rerun.
const (
	maxTreeArchive = 512 << 20 // compressed tarball
	maxTreeBytes   = 2 << 30   // unpacked
	maxTreeFiles   = 200000
)

// rerunSource runs the suites again at the baseline commit, in this job: the tree comes from
// git when the history is there, else from the repository tarball API, so no git is needed.
// Only suites loaded from the checkout can be rerun (their files name what to load there).
type rerunSource struct{ r *run }

// Baselines implements pipeline.BaselineSource. Before the run (a shard's split) it has
// nothing: a rerun would run the base commit's suites in every shard job.
func (src *rerunSource) Baselines(_ context.Context, q pipeline.Query) (map[string]*pipeline.Baseline, error) {
	if q.BeforeRun {
		return nil, nil
	}
	found, note := src.rerun(q)
	return missing(q, found, note), nil
}

// rerun loads the suites of q at the baseline commit and runs them through the pipeline
// (results only, under the results folder's baseline/); note says why suites got none.
func (src *rerunSource) rerun(q pipeline.Query) (map[string]*pipeline.Baseline, string) {
	r := src.r
	target, err := r.baselineCommit()
	if err != nil {
		return nil, "rerun: " + err.Error()
	}
	tree, err := os.MkdirTemp("", "skillgate-base-*")
	if err != nil {
		return nil, "rerun: " + err.Error()
	}
	defer os.RemoveAll(tree)
	if err := src.checkoutTree(target, tree); err != nil {
		r.cmd.warnf("skillgate: rerun baseline: %v", err)
		return nil, "rerun: " + err.Error()
	}
	var files []string
	var missing []string
	need := map[string]string{} // by results slug: the name asked for
	for _, w := range q.Suites {
		if w.File == "" {
			continue
		}
		need[results.Slug(w.Name)] = w.Name
		rel, err := filepath.Rel(r.repoRoot, w.File)
		if err != nil || strings.HasPrefix(rel, "..") {
			missing = append(missing, w.Name)
			continue
		}
		base := filepath.Join(tree, rel)
		if _, err := os.Stat(base); err != nil {
			missing = append(missing, w.Name)
			continue
		}
		files = append(files, base)
	}
	var notes []string
	if len(missing) > 0 {
		notes = append(notes, fmt.Sprintf("rerun: %s did not exist at %s", strings.Join(missing, ", "), short(target)))
	}
	if len(files) == 0 {
		return nil, strings.Join(notes, "; ")
	}
	s := r.settings()
	s.Baselines, s.Shard, s.ConfirmRuns = nil, nil, 0
	s.OutDir = filepath.Join(r.outDir, baselineDir)
	plan, err := pipeline.Load(files, s)
	if err == nil && plan.Loads() == 0 {
		err = plan.NoSuiteError(files)
	}
	if err != nil {
		return nil, "rerun: " + err.Error()
	}
	if errs := plan.Diags.Errors(); len(errs) > 0 {
		notes = append(notes, fmt.Sprintf("rerun: %d suite error(s) at %s, first: %s", len(errs), short(target), errs[0].Message))
	}
	var runnable []*pipeline.Suite
	for _, su := range plan.Suites {
		if need[results.Slug(su.Name())] != "" {
			runnable = append(runnable, su)
		} else {
			notes = append(notes, fmt.Sprintf("rerun: the suite at %s is named %s", short(target), su.Name()))
		}
	}
	if len(runnable) > 0 {
		r.cmd.infof("skillgate: running %d suite(s) for the baseline at %s", len(runnable), short(target))
	}
	out, err := r.evaluateOnly(plan.Only(runnable))
	if err != nil {
		return nil, "rerun: " + err.Error()
	}
	for _, e := range out.SetupErrors {
		notes = append(notes, "rerun: "+e.Error())
	}
	found := map[string]*pipeline.Baseline{}
	for _, h := range out.Heads {
		res := h.Result
		if res.Provenance == nil {
			res.Provenance = &results.Provenance{}
		}
		res.Provenance.GitCommit = target
		if err := results.WriteFile(h.File, res); err != nil {
			r.cmd.warnf("skillgate: writing the rerun baseline: %v", err)
		}
		found[need[results.Slug(res.EvalName)]] = &pipeline.Baseline{Result: res, File: h.File, Source: &results.BaselineSource{
			Method: BaselineRerun, Commit: target, CreatedAt: res.Timestamp, Detail: "re-run in this job"}}
	}
	return found, strings.Join(notes, "; ")
}

// evaluateOnly runs the plan and writes its results files, comparing and publishing nothing
// (a rerun at the base commit).
func (r *run) evaluateOnly(plan *pipeline.Plan) (*pipeline.Outcome, error) {
	defer r.agentOut.Flush()
	defer r.agentErr.Flush()
	return pipeline.Evaluate(r.ctx, plan, nil)
}

// checkoutTree puts the commit's files into dir: `git archive` when git has the commit, else
// the tarball API.
func (src *rerunSource) checkoutTree(commit, dir string) error {
	r := src.r
	if bin, err := r.d.LookPath("git"); err == nil {
		if _, err := r.git("cat-file", "-e", commit+"^{commit}"); err == nil {
			cmd := exec.CommandContext(r.ctx, bin, "-c", "safe.directory=*", "-C", r.repoRoot, "archive", "--format=tar", commit)
			cmd.Env = childenv.For("")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				return err
			}
			if err := cmd.Start(); err != nil {
				return err
			}
			exErr := extractTar(out, dir, false)
			io.Copy(io.Discard, out)
			if err := cmd.Wait(); err != nil {
				return fmt.Errorf("git archive %s: %w: %s", short(commit), err, strings.TrimSpace(stderr.String()))
			}
			return exErr
		}
	}
	if r.gh == nil {
		return fmt.Errorf("no github-token to download %s and git does not have it", short(commit))
	}
	u, resp, err := r.gh.Repositories.GetArchiveLink(r.ctx, r.ev.Owner, r.ev.Repo, github.Tarball, &github.RepositoryContentGetOptions{Ref: commit}, 3)
	if err != nil {
		return errors.New(apiProblem("downloading "+short(commit), "contents: read", resp, err))
	}
	f, err := r.fetch(u.String(), maxTreeArchive)
	if err != nil {
		return fmt.Errorf("downloading %s: %w", short(commit), err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("the tarball of %s: %w", short(commit), err)
	}
	defer gz.Close()
	return extractTar(gz, dir, true)
}

// extractTar unpacks a tar stream into dir, refusing entries that would land outside it and
// stopping at the size limits. stripTop drops the first path segment (the API's tarballs put
// everything under owner-repo-sha/). Symbolic links are kept when they point inside the tree.
func extractTar(rd io.Reader, dir string, stripTop bool) error {
	tr := tar.NewReader(rd)
	var total int64
	files := 0
	var links []*tar.Header
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("reading the archive: %w", err)
		}
		if h.Typeflag == tar.TypeXGlobalHeader || h.Typeflag == tar.TypeXHeader {
			continue
		}
		if err := checkEntryName(h.Name); err != nil {
			return err
		}
		name := path.Clean(h.Name)
		if stripTop {
			_, rest, ok := strings.Cut(name, "/")
			if !ok {
				continue // the top folder itself
			}
			name = rest
		}
		if name == "." || name == "" {
			continue
		}
		if files++; files > maxTreeFiles {
			return fmt.Errorf("more than %d files", maxTreeFiles)
		}
		target := filepath.Join(dir, filepath.FromSlash(name))
		if !within(dir, target) {
			return fmt.Errorf("unsafe entry name %q", clip(h.Name, 100))
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if total += h.Size; total > maxTreeBytes {
				return fmt.Errorf("more than %d MiB unpacked", maxTreeBytes>>20)
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			mode := os.FileMode(0o644)
			if h.Mode&0o111 != 0 {
				mode = 0o755
			}
			f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, io.LimitReader(tr, h.Size))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			h := *h
			h.Name = target
			links = append(links, &h)
		}
	}
	// Links last, so no later entry is written through one.
	for _, h := range links {
		dest := h.Linkname
		if filepath.IsAbs(dest) {
			continue
		}
		resolved := filepath.Join(filepath.Dir(h.Name), filepath.FromSlash(dest))
		if !within(dir, resolved) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(h.Name), 0o755); err != nil {
			return err
		}
		if err := os.Symlink(dest, h.Name); err != nil && !os.IsExist(err) {
			return err
		}
	}
	return nil
}
