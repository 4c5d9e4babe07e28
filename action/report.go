package action

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/report"
)

// collectedDir holds, under the results folder, the collected run's results files: the recorded
// runs the report mode replays.
const collectedDir = "collected"

// reportMode is phase two of the fork-safe flow, in a workflow_run workflow. It trusts the
// event (from GitHub) and nothing in the artifact: the bundle is size-capped, name-checked and
// schema-validated, its pull request number is checked against the run's head commit through
// the API, and the suites are read from it as data. Nothing of the pull request is checked out
// or executed: the replay executor serves the recorded runs, no hook runs, graders that execute
// programs (or read the workspace only the collecting run had) give their recorded results, and
// the LLM judges grade the recorded outputs framed as data.
func (r *run) reportCollected() int {
	ev := r.ev
	switch {
	case ev.Name != "workflow_run" || ev.Run == nil:
		r.cmd.errorf("skillgate: mode: report", "mode: report publishes a collected run from a workflow_run workflow (on: workflow_run: workflows: [<the evaluation workflow>] types: [completed]); this is a %s event", orWord(ev.Name, "unknown"))
		return ExitUsage
	case ev.Run.Event != "pull_request":
		r.cmd.infof("skillgate: run %d was triggered by %s, not by a pull request: nothing to report", ev.Run.ID, orWord(ev.Run.Event, "an unknown event"))
		r.output(OutVerdict, pipeline.VerdictSkipped)
		return ExitOK
	case r.gh == nil:
		r.cmd.errorf("skillgate: mode: report", "mode: report needs github-token and GITHUB_REPOSITORY to download the bundle, comment and create the check run")
		return ExitUsage
	}
	// Baselines, the comment key and the check-run name belong to the evaluation workflow.
	r.ev.Workflow = ev.Run.Workflow
	if err := os.MkdirAll(r.outDir, 0o755); err != nil {
		r.cmd.errorf("skillgate: results-dir", "cannot create %s: %v", r.outDir, err)
		return ExitUsage
	}
	defer chownToWorkspace(r.outDir, r.workspace)
	fork := !strings.EqualFold(ev.Run.HeadRepo, ev.FullName())

	b, err := r.downloadBundle()
	switch {
	case (errors.Is(err, errNoArtifact) || errors.Is(err, errNoPRRecord)) && !fork:
		r.cmd.infof("skillgate: run %d comes from this repository and left no bundle: it published its own results", ev.Run.ID)
		r.output(OutVerdict, pipeline.VerdictSkipped)
		return ExitOK
	case err != nil && ev.Run.Conclusion == "cancelled":
		r.cmd.noticef("skillgate: run %d was cancelled and left no usable bundle (%v): nothing to report", ev.Run.ID, err)
		r.output(OutVerdict, pipeline.VerdictSkipped)
		return ExitOK
	case errors.Is(err, errNoArtifact) || errors.Is(err, errNoPRRecord):
		return r.refuseRun(fmt.Sprintf("run %d of %s left no bundle to report (%v): its skillgate step must use mode: auto or collect, and the run must upload the results folder as the artifact %s (if: ${{ !cancelled() }})",
			ev.Run.ID, ev.Run.Workflow, err, r.cfg.ArtifactName), "")
	case err != nil:
		return r.refuseRun(err.Error(), "")
	}
	rec := b.PR
	if !fork && !rec.NeedsReport {
		r.cmd.infof("skillgate: run %d published its own results: nothing to report", ev.Run.ID)
		r.output(OutVerdict, pipeline.VerdictSkipped)
		return ExitOK
	}
	if err := r.checkKey(rec.Key); err != nil {
		return r.refuseRun(err.Error(), "")
	}
	pr, err := r.verifyPR(rec)
	if err != nil {
		return r.refuseRun(err.Error(), rec.Key)
	}
	r.ev.PR = pr
	r.reported = &reportedRun{key: rec.Key, staleHead: r.reported != nil && r.reported.staleHead}
	r.writes.readOnly = false
	r.cmd.infof("skillgate: reporting run %d of %s for pull request #%d (%s at %s): %d suite(s), %d deferred LLM grade(s)",
		ev.Run.ID, ev.Run.Workflow, pr.Number, pr.HeadRepo, short(pr.HeadSHA), len(rec.Suites), rec.Deferred)

	tree, err := os.MkdirTemp("", "skillgate-bundle-*")
	if err != nil {
		r.cmd.errorf("skillgate: mode: report", "%v", err)
		return ExitUsage
	}
	defer os.RemoveAll(tree)
	if err := b.writeTree(tree); err != nil {
		return r.refuseRun(err.Error(), rec.Key)
	}
	// Paths in the reports are repository-relative; git never runs on the bundle.
	r.repoRoot = tree
	var recorded []pipeline.Recorded
	for _, s := range b.PR.Suites {
		recorded = append(recorded, pipeline.Recorded{File: filepath.Join(tree, filepath.FromSlash(s.SuiteFile)), Result: b.Results[s.Results],
			Commit: r.ev.PR.HeadSHA, Source: fmt.Sprintf("run %d (collected)", r.ev.Run.ID)})
	}
	plan, err := pipeline.LoadRecorded(tree, filepath.Join(r.outDir, collectedDir), recorded, r.settings())
	if plan != nil {
		r.annotateProblems(plan, tree, false)
	}
	var refused *pipeline.RefusedError
	switch {
	case errors.As(err, &refused):
		return r.refuseRun(refuse("%s", refused.Msg).Error(), rec.Key)
	case err != nil:
		return r.refuseRun(err.Error(), rec.Key)
	}
	var unaffected []report.Unaffected
	for _, u := range rec.Unaffected {
		unaffected = append(unaffected, report.Unaffected{Name: u.Name, Reason: u.Reason})
	}
	out, err := r.evaluate(plan, unaffected)
	var runErr *pipeline.RunError
	if errors.As(err, &runErr) {
		for _, e := range out.SetupErrors {
			r.cmd.errorf("skillgate: suite could not start", "%v", e)
		}
		return r.refuseRun(runErr.Err.Error(), rec.Key)
	}
	return r.finish(plan, out, err)
}

// downloadBundle downloads the triggering run's results artifact and reads it as a bundle.
func (r *run) downloadBundle() (*bundle, error) {
	f, _, err := r.downloadArtifact(r.ev.Run.ID, r.cfg.ArtifactName)
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readBundle(f, info.Size())
}

// checkKey: the bundle's comment key must belong to the workflow that ran (it names the check
// run and the comment marker).
func (r *run) checkKey(key string) error {
	wf := strings.TrimSuffix(strings.TrimSuffix(r.ev.Run.Workflow, ".yml"), ".yaml")
	if head, _, _ := strings.Cut(key, "/"); wf != "" && head != wf {
		return refuse("%s's key %q names another workflow than %s, the one that ran", PRFile, key, r.ev.Run.Workflow)
	}
	return nil
}

// verifyPR cross-checks pr.json against GitHub: the pull request must exist in this repository,
// come from the run's head repository, and have the run's head commit — or, when it has moved
// on since, still contain that commit (then only the check run on that commit is posted).
func (r *run) verifyPR(rec *PRRecord) (*PullRequest, error) {
	run := r.ev.Run
	if !strings.EqualFold(rec.HeadSHA, run.HeadSHA) {
		return nil, refuse("%s says head %s, but run %d ran %s", PRFile, short(rec.HeadSHA), run.ID, short(run.HeadSHA))
	}
	if len(run.PullRequests) > 0 && !containsInt(run.PullRequests, rec.Number) {
		return nil, refuse("%s names pull request #%d, but run %d belongs to #%v", PRFile, rec.Number, run.ID, run.PullRequests)
	}
	got, resp, err := r.gh.PullRequests.Get(r.ctx, r.ev.Owner, r.ev.Repo, rec.Number)
	if err != nil {
		return nil, refuse("%s names pull request #%d: %s", PRFile, rec.Number, apiProblem("reading it", "pull-requests: read", resp, err))
	}
	if base := got.GetBase().GetRepo().GetFullName(); base != "" && !strings.EqualFold(base, r.ev.FullName()) {
		return nil, refuse("pull request #%d is into %s, not %s", rec.Number, base, r.ev.FullName())
	}
	head := got.GetHead().GetRepo().GetFullName()
	if !strings.EqualFold(head, run.HeadRepo) {
		return nil, refuse("pull request #%d comes from %s, but run %d ran code from %s", rec.Number, orWord(head, "a deleted repository"), run.ID, run.HeadRepo)
	}
	if !strings.EqualFold(got.GetHead().GetSHA(), run.HeadSHA) {
		ok, err := r.prHasCommit(rec.Number, run.HeadSHA)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, refuse("%s names pull request #%d, whose head is %s, not the head %s of run %d", PRFile, rec.Number, short(got.GetHead().GetSHA()), short(run.HeadSHA), run.ID)
		}
		r.reported = &reportedRun{staleHead: true}
	}
	return &PullRequest{
		Number: rec.Number, HeadSHA: run.HeadSHA, HeadRef: got.GetHead().GetRef(), HeadRepo: head,
		BaseSHA: got.GetBase().GetSHA(), BaseRef: got.GetBase().GetRef(), HTMLURL: got.GetHTMLURL(),
	}, nil
}

// prHasCommit reports whether GitHub associates the commit with the pull request.
func (r *run) prHasCommit(number int, sha string) (bool, error) {
	list, resp, err := r.gh.PullRequests.ListPullRequestsWithCommit(r.ctx, r.ev.Owner, r.ev.Repo, sha, &github.ListOptions{PerPage: 100})
	if err != nil {
		return false, refuse("checking that %s belongs to pull request #%d: %s", short(sha), number, apiProblem("listing its pull requests", "pull-requests: read", resp, err))
	}
	for _, p := range list {
		if p.GetNumber() == number {
			return true, nil
		}
	}
	return false, nil
}

func containsInt(list []int, n int) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}

// refuseRun reports a run the report mode cannot publish: an error annotation and a failed
// check run on the run's head commit (the commit comes from the event, so it is safe to write
// to), named like the evaluation workflow's check so the required check shows why.
func (r *run) refuseRun(why, key string) int {
	r.cmd.errorf("skillgate: nothing reported", "%s", why)
	if key == "" {
		key = strings.TrimSuffix(strings.TrimSuffix(r.ev.Run.Workflow, ".yml"), ".yaml")
	}
	now := github.Timestamp{Time: r.d.Now()}
	opts := github.CreateCheckRunOptions{
		Name: CheckRunName(key), HeadSHA: r.ev.Run.HeadSHA, Status: github.String("completed"), Conclusion: github.String("failure"),
		CompletedAt: &now,
		Output: &github.CheckRunOutput{
			Title:   github.String("skillgate could not report this run"),
			Summary: github.String(plainBlock(clip(why, checkRunTextLimit-200)) + "\nSee the log of the report workflow for details."),
		},
	}
	if r.ev.RunID != 0 {
		opts.DetailsURL = github.String(fmt.Sprintf("%s/%s/actions/runs/%d", r.ev.ServerURL, r.ev.FullName(), r.ev.RunID))
	}
	if _, resp, err := r.gh.Checks.CreateCheckRun(r.ctx, r.ev.Owner, r.ev.Repo, opts); err != nil {
		r.cmd.warnf("skillgate: the check run was not created: %s", apiProblem("creating the check run", "checks: write", resp, err))
	}
	return ExitUsage
}

// plainBlock shows s as plain text in GitHub Markdown: a fenced block whose fence is longer than
// any run of backticks in s, control characters dropped. A refused bundle's reason quotes what
// the fork wrote; rendered as Markdown it could show images, mention people or forge a
// "✅ all evals passed" heading in the failed check run.
func plainBlock(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(c rune) rune {
		if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return -1
		}
		return c
	}, s)
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "text\n" + strings.TrimRight(s, "\n") + "\n" + fence + "\n"
}
