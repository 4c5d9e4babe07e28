package action

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/google/go-github/v60/github"

	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/results"
)

// Limits on results artifacts, which are untrusted input (anyone who can push to the base
// branch's workflow can shape them).
const (
	maxArtifactZip     = 256 << 20 // compressed download
	maxResultsFileSize = 128 << 20 // one results file, uncompressed
	maxResultsTotal    = 512 << 20 // all results files read, uncompressed
	maxZipEntries      = 20000
	// ancestorWindow: a baseline may come from this many commits before the merge base.
	ancestorWindow = 50
	// artifactRunPages and artifactTries bound the API calls spent looking for a baseline.
	artifactRunPages = 3
	artifactTries    = 5
)

// artifactSource finds the results artifact of the newest successful push run of this
// workflow on the base branch whose head is the baseline commit, else the nearest ancestor
// within ancestorWindow commits. Only runs whose head repository is this repository count: a
// fork's branch can share the base branch's name. The artifact is fetched once per job
// (fetch); each query picks the suites asked from it.
type artifactSource struct {
	r *run
	// fetched is the outcome of the search, once it is done.
	fetched *artifactFetch
}

// artifacts is the job's artifact source: one search for the split, the run cache's seed and the
// comparison.
func (r *run) artifacts() *artifactSource {
	if r.artifact == nil {
		r.artifact = &artifactSource{r: r}
	}
	return r.artifact
}

// Baselines implements pipeline.BaselineSource.
func (a *artifactSource) Baselines(_ context.Context, q pipeline.Query) (map[string]*pipeline.Baseline, error) {
	f := a.fetch()
	if f.set == nil {
		return missing(q, nil, f.note), nil
	}
	found := map[string]*pipeline.Baseline{}
	for _, w := range q.Suites {
		if b := f.baseline(results.Slug(w.Name)); b != nil {
			found[w.Name] = b
		}
	}
	note := ""
	if len(found) < len(q.Suites) {
		note = fmt.Sprintf("artifact of run %d has no results of the suite", f.run.run.GetID())
	}
	return missing(q, found, note), nil
}

// baseline is the artifact's baseline of a suite (by results slug), made once, so that the
// split, the run cache's seed and the comparison share it (and keep it once); nil when the
// artifact has no results of the suite.
func (f *artifactFetch) baseline(slug string) *pipeline.Baseline {
	if b, ok := f.baselines[slug]; ok {
		return b
	}
	res := f.set[slug]
	if res == nil {
		return nil
	}
	created := f.art.GetCreatedAt().Time
	if created.IsZero() {
		created = f.run.run.GetUpdatedAt().Time
	}
	b := &pipeline.Baseline{Result: res, History: f.history[slug], Source: &results.BaselineSource{Method: BaselineArtifact, Commit: f.run.run.GetHeadSHA(), CreatedAt: created, Detail: f.detail}}
	if f.baselines == nil {
		f.baselines = map[string]*pipeline.Baseline{}
	}
	f.baselines[slug] = b
	return b
}

// artifactFetch is the outcome of the search for the baseline artifact: its results by slug,
// or (set nil) a note saying why there are none.
type artifactFetch struct {
	set    map[string]*results.SuiteResult
	run    candidateRun
	art    *github.Artifact
	detail string
	note   string
	// history holds, by slug, what pooling keeps of earlier base runs' results
	// (docs/statistics.md#remembering-the-base), newest first.
	history map[string][]*results.BaseRecord
	// baselines are the baselines made of set, by slug.
	baselines map[string]*pipeline.Baseline
}

// fetch searches for and downloads the baseline artifact on its first call; later calls (a
// shard's split while its suites load, the run cache's seed, the comparison) reuse it.
func (a *artifactSource) fetch() *artifactFetch {
	if a.fetched == nil {
		a.fetched = a.search()
	}
	return a.fetched
}

func (a *artifactSource) search() *artifactFetch {
	r := a.r
	if r.gh == nil {
		return &artifactFetch{note: "artifact: no github-token"}
	}
	if r.ev.Workflow == "" {
		return &artifactFetch{note: "artifact: the workflow file is unknown (GITHUB_WORKFLOW_REF is not set)"}
	}
	target, err := r.baselineCommit()
	if err != nil {
		return &artifactFetch{note: "artifact: " + err.Error()}
	}
	branch := strings.TrimPrefix(r.ev.Ref, "refs/heads/")
	if r.ev.PR != nil {
		branch = r.ev.PR.BaseRef
	}
	ancestors, err := a.ancestors(target)
	if err != nil {
		r.cmd.warnf("skillgate: baseline artifact: %v", err)
		return &artifactFetch{note: "artifact: " + err.Error()}
	}
	candidates, err := a.baseRuns(branch, ancestors)
	if err != nil {
		r.cmd.warnf("skillgate: baseline artifact: %v", err)
		return &artifactFetch{note: "artifact: " + err.Error()}
	}
	if len(candidates) == 0 {
		return &artifactFetch{note: fmt.Sprintf("artifact: no successful push run of %s on %s for %s or the %d commits before it", r.ev.Workflow, branch, short(target), ancestorWindow-1)}
	}
	var problems []string
	for i, run := range candidates {
		if i == artifactTries {
			break
		}
		set, art, problem := a.runResults(run.run)
		if problem != "" {
			problems = append(problems, problem)
			continue
		}
		detail := fmt.Sprintf("artifact %s of workflow run %d", art.GetName(), run.run.GetID())
		if run.distance > 0 {
			detail += fmt.Sprintf(", the nearest ancestor with results, %d commit(s) before %s", run.distance, short(target))
		}
		if set == nil {
			set = map[string]*results.SuiteResult{}
		}
		return &artifactFetch{set: set, run: run, art: art, detail: detail, history: a.baseHistory(candidates[i+1:])}
	}
	r.cmd.warnf("skillgate: no usable baseline artifact: %s", strings.Join(problems, "; "))
	return &artifactFetch{note: "artifact: " + strings.Join(problems, "; ")}
}

// baseHistory downloads the results artifacts of up to base-history earlier base runs and keeps
// of each suite's results only what pooling needs (results.RecordOf). A run without a usable
// artifact is passed over; a few of them in a row end the search.
func (a *artifactSource) baseHistory(older []candidateRun) map[string][]*results.BaseRecord {
	r := a.r
	if r.cfg.BaseHistory <= 0 {
		return nil
	}
	out := map[string][]*results.BaseRecord{}
	kept, misses := 0, 0
	for _, run := range older {
		if kept == r.cfg.BaseHistory || misses == artifactTries {
			break
		}
		set, _, problem := a.runResults(run.run)
		if problem != "" {
			misses++
			continue
		}
		kept++
		for slug, res := range set {
			out[slug] = append(out[slug], results.RecordOf(res))
		}
	}
	if kept > 0 {
		r.cmd.infof("skillgate: base history: the results of %d earlier base run(s) are pooled with the baseline where a task's inputs did not change", kept)
	}
	return out
}

// candidateRun is a workflow run whose head is an ancestor of the baseline commit.
type candidateRun struct {
	run      *github.WorkflowRun
	distance int // commits before the baseline commit (0: the commit itself)
}

// ancestors returns the baseline commit and its ancestors within the window, each with its
// distance: from git when the history is there, else from the commits API.
func (a *artifactSource) ancestors(target string) (map[string]int, error) {
	r := a.r
	out := map[string]int{}
	if list, err := r.git("rev-list", fmt.Sprintf("--max-count=%d", ancestorWindow), target); err == nil {
		for i, sha := range strings.Fields(list) {
			out[sha] = i
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	commits, resp, err := r.gh.Repositories.ListCommits(r.ctx, r.ev.Owner, r.ev.Repo, &github.CommitsListOptions{SHA: target, ListOptions: github.ListOptions{PerPage: ancestorWindow}})
	if err != nil {
		return nil, errors.New(apiProblem("listing the commits before "+short(target), "contents: read", resp, err))
	}
	for i, c := range commits {
		if _, dup := out[c.GetSHA()]; !dup {
			out[c.GetSHA()] = i
		}
	}
	out[target] = 0
	return out, nil
}

// baseRuns lists successful push runs of this workflow on the branch, from this repository,
// at an ancestor of the baseline commit: nearest first, newest first among equals.
func (a *artifactSource) baseRuns(branch string, ancestors map[string]int) ([]candidateRun, error) {
	r := a.r
	var out []candidateRun
	opts := &github.ListWorkflowRunsOptions{Branch: branch, Event: "push", Status: "success", ListOptions: github.ListOptions{PerPage: 100}}
	for page := 0; page < artifactRunPages; page++ {
		runs, resp, err := r.gh.Actions.ListWorkflowRunsByFileName(r.ctx, r.ev.Owner, r.ev.Repo, r.ev.Workflow, opts)
		if err != nil {
			return nil, errors.New(apiProblem("listing the runs of "+r.ev.Workflow, "actions: read", resp, err))
		}
		exact := false
		for _, run := range runs.WorkflowRuns {
			if !strings.EqualFold(run.GetHeadRepository().GetFullName(), r.ev.FullName()) {
				continue
			}
			if d, ok := ancestors[run.GetHeadSHA()]; ok {
				out = append(out, candidateRun{run: run, distance: d})
				exact = exact || d == 0
			}
		}
		if exact || resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].distance != out[j].distance {
			return out[i].distance < out[j].distance
		}
		return out[i].run.GetCreatedAt().After(out[j].run.GetCreatedAt().Time)
	})
	return out, nil
}

// runResults downloads a run's results artifact and reads the results files in it. problem says
// why the run gave nothing (no artifact, expired, corrupt, too large).
func (a *artifactSource) runResults(run *github.WorkflowRun) (map[string]*results.SuiteResult, *github.Artifact, string) {
	r := a.r
	id := run.GetID()
	f, art, err := r.downloadArtifact(id, r.cfg.ArtifactName)
	if err != nil {
		return nil, nil, err.Error()
	}
	defer os.Remove(f.Name())
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err.Error()
	}
	set, err := readResultsZip(f, info.Size())
	if err != nil {
		return nil, nil, fmt.Sprintf("run %d: artifact %s: %v", id, r.cfg.ArtifactName, err)
	}
	return set, art, ""
}

// errNoArtifact: the run uploaded no artifact of that name.
var errNoArtifact = errors.New("no such artifact")

// downloadArtifact finds a run's artifact by name and downloads its zip into a temporary file
// (the caller removes it): the API answers with a redirect to a signed URL, fetched without
// credentials and size-capped.
func (r *run) downloadArtifact(runID int64, name string) (*os.File, *github.Artifact, error) {
	var art *github.Artifact
	opts := &github.ListOptions{PerPage: 100}
	for art == nil {
		list, resp, err := r.gh.Actions.ListWorkflowRunArtifacts(r.ctx, r.ev.Owner, r.ev.Repo, runID, opts)
		if err != nil {
			return nil, nil, errors.New(apiProblem(fmt.Sprintf("run %d: listing artifacts", runID), "actions: read", resp, err))
		}
		for _, a := range list.Artifacts {
			if a.GetName() == name {
				art = a
				break
			}
		}
		if art != nil || resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	switch {
	case art == nil:
		return nil, nil, fmt.Errorf("run %d has no artifact named %s: %w", runID, name, errNoArtifact)
	case art.GetExpired():
		return nil, nil, fmt.Errorf("run %d: artifact %s expired", runID, name)
	case art.GetSizeInBytes() > maxArtifactZip:
		return nil, nil, fmt.Errorf("run %d: artifact %s is %d MiB, over the %d MiB limit", runID, name, art.GetSizeInBytes()>>20, maxArtifactZip>>20)
	}
	u, resp, err := r.gh.Actions.DownloadArtifact(r.ctx, r.ev.Owner, r.ev.Repo, art.GetID(), 3)
	if err != nil {
		if statusOf(resp, err) == http.StatusGone {
			return nil, nil, fmt.Errorf("run %d: artifact %s expired (410)", runID, name)
		}
		return nil, nil, errors.New(apiProblem(fmt.Sprintf("run %d: downloading artifact %s", runID, name), "actions: read", resp, err))
	}
	f, err := r.fetch(u.String(), maxArtifactZip)
	if err != nil {
		return nil, nil, fmt.Errorf("run %d: artifact %s: %w", runID, name, err)
	}
	return f, art, nil
}

// fetch downloads a signed URL (no credentials) into a temporary file, refusing more than limit
// bytes.
func (r *run) fetch(url string, limit int64) (*os.File, error) {
	req, err := http.NewRequestWithContext(r.ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := r.plain.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download: %s", resp.Status)
	}
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("download of %d MiB is over the %d MiB limit", resp.ContentLength>>20, limit>>20)
	}
	f, err := os.CreateTemp("", "skillgate-download-*")
	if err != nil {
		return nil, err
	}
	n, err := io.Copy(f, io.LimitReader(resp.Body, limit+1))
	if err == nil && n > limit {
		err = fmt.Errorf("download is over the %d MiB limit", limit>>20)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// readResultsZip reads the results files of a results artifact: entries named
// results/<suite>.json at the top (the layout of an uploaded results folder), or one folder
// down. Every entry name is checked; nothing is extracted to disk, and only results files are
// read, each and all within size limits. The map is keyed by the suite's results slug.
func readResultsZip(ra io.ReaderAt, size int64) (map[string]*results.SuiteResult, error) {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, fmt.Errorf("not a zip archive: %w", err)
	}
	if len(zr.File) > maxZipEntries {
		return nil, fmt.Errorf("%d entries, over the limit of %d", len(zr.File), maxZipEntries)
	}
	var picked []*zip.File
	depth := -1
	for _, f := range zr.File {
		if err := checkEntryName(f.Name); err != nil {
			return nil, err
		}
		d, ok := resultsEntry(f.Name)
		if !ok || f.FileInfo().IsDir() {
			continue
		}
		switch {
		case depth < 0 || d < depth:
			depth, picked = d, []*zip.File{f}
		case d == depth:
			picked = append(picked, f)
		}
	}
	if len(picked) == 0 {
		return nil, errors.New("no results/<suite>.json in the archive")
	}
	out := map[string]*results.SuiteResult{}
	var total int64
	for _, f := range picked {
		if f.UncompressedSize64 > maxResultsFileSize {
			return nil, fmt.Errorf("%s is larger than %d MiB", f.Name, maxResultsFileSize>>20)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		data, err := io.ReadAll(io.LimitReader(rc, maxResultsFileSize+1))
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		if len(data) > maxResultsFileSize {
			return nil, fmt.Errorf("%s is larger than %d MiB", f.Name, maxResultsFileSize>>20)
		}
		if total += int64(len(data)); total > maxResultsTotal {
			return nil, fmt.Errorf("results files larger than %d MiB in all", maxResultsTotal>>20)
		}
		res, err := results.Decode(data, f.Name)
		if err != nil {
			return nil, err
		}
		out[results.Slug(res.EvalName)] = res
	}
	return out, nil
}

// checkEntryName refuses archive entry names that could point outside the archive or confuse a
// reader: absolute paths, `..`, backslashes, drive letters, NUL and invalid UTF-8.
func checkEntryName(name string) error {
	bad := func(why string) error { return fmt.Errorf("unsafe entry name %q: %s", clip(name, 100), why) }
	switch {
	case name == "":
		return bad("empty")
	case !utf8.ValidString(name):
		return bad("not UTF-8")
	case strings.ContainsAny(name, "\x00\\"):
		return bad("NUL or backslash")
	case strings.HasPrefix(name, "/"):
		return bad("absolute")
	case len(name) > 1 && name[1] == ':':
		return bad("drive letter")
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." {
			return bad("`..` leaves the archive")
		}
	}
	return nil
}

// resultsEntry reports whether an entry is a results file, results/<name>.json, and how many
// folders sit above results/. Baselines kept by an earlier run (baseline/results/…) are not
// results of that run and are skipped.
func resultsEntry(name string) (int, bool) {
	clean := path.Clean(name)
	dir, file := path.Split(clean)
	dir = strings.TrimSuffix(dir, "/")
	if !strings.HasSuffix(file, ".json") || strings.HasPrefix(file, ".") {
		return 0, false
	}
	parts := strings.Split(dir, "/")
	if parts[len(parts)-1] != "results" || len(parts) > 2 {
		return 0, false
	}
	if len(parts) == 2 && parts[0] == baselineDir {
		return 0, false
	}
	return len(parts) - 1, true
}
