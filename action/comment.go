package action

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/report"
)

// comment posts or updates the sticky pull-request comment and returns its URL. `auto` creates
// a comment when suites ran (and keeps an existing one up to date even when none did); `always`
// also creates one when nothing ran. Failures are warnings: the evaluation stands.
func (r *run) comment(in *report.Input, ran bool) string {
	policy := r.cfg.Comment
	switch {
	case policy == CommentNever:
		return ""
	case r.ev.PR == nil:
		if policy == CommentAlways {
			r.cmd.infof("skillgate: a %s event has no pull request to comment on", orWord(r.ev.Name, "workflow"))
		}
		return ""
	case r.writes.readOnly && r.writes.refused:
		r.cmd.noticef("skillgate: the token is read-only, so no comment; the job summary has the report")
		return ""
	case r.writes.readOnly:
		r.cmd.noticef("skillgate: pull request from a fork (%s): its token is read-only, so no comment; the job summary has the report", r.ev.PR.HeadRepo)
		return ""
	case r.reported != nil && r.reported.staleHead:
		r.cmd.infof("skillgate: pull request #%d has moved past %s since the collected run: the comment is left to the newer run; the check run goes on %s", r.ev.PR.Number, short(r.ev.PR.HeadSHA), short(r.ev.PR.HeadSHA))
		return ""
	case r.gh == nil:
		r.cmd.warnf("skillgate: no github-token (or GITHUB_REPOSITORY): the pull-request comment was not posted")
		return ""
	}
	url, err := r.upsertComment(report.Marker(in.Key), report.Comment(in), ran || policy == CommentAlways)
	if r.writes.refused {
		r.writes.readOnly = true
	}
	if err != nil {
		r.cmd.warnf("skillgate: the pull-request comment was not posted: %v", err)
		return ""
	}
	return url
}

// upsertComment keeps exactly one comment carrying the marker and written by the identity the
// action runs as (owner.go): it edits the oldest such comment in place, or creates one (when
// create is set). Marked comments by anyone else are left alone. Two runs racing may both
// create one, so after creating it lists again, keeps the oldest and deletes the younger
// duplicates; the kept comment gets this run's body.
func (r *run) upsertComment(marker, body string, create bool) (string, error) {
	owner, repo, number := r.ev.Owner, r.ev.Repo, r.ev.PR.Number
	login := r.tokenLogin()
	marked, err := r.markedComments(marker)
	if err != nil {
		return "", err
	}
	if mine := ownedBy(marked, login); len(mine) > 0 {
		keep := mine[0]
		url, err := r.editComment(keep, body)
		if err != nil {
			return "", err
		}
		r.deleteComments(mine[1:])
		return url, nil
	}
	if !create {
		return "", nil
	}
	seen := map[int64]bool{}
	for _, c := range marked {
		seen[c.GetID()] = true
	}
	var created *github.IssueComment
	resp, err := r.createRecovering(func() (*github.Response, error) {
		c, resp, err := r.gh.Issues.CreateComment(r.ctx, owner, repo, number, &github.IssueComment{Body: github.String(body)})
		created = c
		return resp, err
	}, func() bool {
		// A new comment with this run's body, by this identity when it is known.
		again, err := r.markedComments(marker)
		if err != nil {
			return false
		}
		for _, c := range again {
			if !seen[c.GetID()] && c.GetBody() == body && (login == "" || len(ownedBy([]*github.IssueComment{c}, login)) == 1) {
				created = c
				return true
			}
		}
		return false
	})
	r.noteRefused(resp, err)
	if err != nil {
		return "", errors.New(apiProblem("creating the comment", "pull-requests: write", resp, err))
	}
	if login == "" {
		// The API did not say who the token is; the comment just created does.
		login = created.GetUser().GetLogin()
		r.login = login
	}
	again, err := r.markedComments(marker)
	mine := ownedBy(again, login)
	if err != nil || len(mine) == 0 {
		return created.GetHTMLURL(), nil
	}
	keep := mine[0]
	r.deleteComments(mine[1:])
	if keep.GetID() == created.GetID() {
		return created.GetHTMLURL(), nil
	}
	return r.editComment(keep, body)
}

func (r *run) editComment(c *github.IssueComment, body string) (string, error) {
	if c.GetBody() == body {
		return c.GetHTMLURL(), nil
	}
	edited, resp, err := r.gh.Issues.EditComment(r.ctx, r.ev.Owner, r.ev.Repo, c.GetID(), &github.IssueComment{Body: github.String(body)})
	r.noteRefused(resp, err)
	if err != nil {
		return "", errors.New(apiProblem("editing the comment", "pull-requests: write", resp, err))
	}
	if u := edited.GetHTMLURL(); u != "" {
		return u, nil
	}
	return c.GetHTMLURL(), nil
}

// deleteComments removes duplicates; one already deleted (by the racing run) is fine.
func (r *run) deleteComments(cs []*github.IssueComment) {
	for _, c := range cs {
		resp, err := r.gh.Issues.DeleteComment(r.ctx, r.ev.Owner, r.ev.Repo, c.GetID())
		if err != nil && statusOf(resp, err) != http.StatusNotFound {
			r.cmd.warnf("skillgate: removing the duplicate comment %d: %s", c.GetID(), apiProblem("deleting", "pull-requests: write", resp, err))
		}
	}
}

// markedComments lists the pull request's comments that start with the marker, oldest first,
// whoever wrote them (upsertComment keeps the action's own).
func (r *run) markedComments(marker string) ([]*github.IssueComment, error) {
	var out []*github.IssueComment
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		list, resp, err := r.gh.Issues.ListComments(r.ctx, r.ev.Owner, r.ev.Repo, r.ev.PR.Number, opts)
		if err != nil {
			return nil, errors.New(apiProblem("listing the pull request's comments", "pull-requests: read", resp, err))
		}
		for _, c := range list {
			if strings.HasPrefix(strings.TrimSpace(c.GetBody()), marker) {
				out = append(out, c)
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	sort.SliceStable(out, func(i, j int) bool {
		ti, tj := out[i].GetCreatedAt().Time, out[j].GetCreatedAt().Time
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return out[i].GetID() < out[j].GetID()
	})
	return out, nil
}

// Check runs take at most 50 annotations per request; more go in follow-up updates, which
// append.
const checkRunBatch = 50

// checkRunTextLimit is the most characters of a check run's output.summary.
const checkRunTextLimit = 65535

// checkRun creates a completed check run on the head commit carrying every annotation with a
// place, in batches. A check run that cannot be created (no `checks: write`) is a warning.
func (r *run) checkRun(in *report.Input, anns []Annotation, failed bool, v *pipeline.Vars) {
	switch {
	case r.gh == nil:
		r.cmd.warnf("skillgate: no github-token (or GITHUB_REPOSITORY): the check run was not created")
		return
	case r.writes.readOnly:
		r.cmd.noticef("skillgate: the token is read-only (a pull request from a fork, or a refused write): no check run")
		return
	case r.ev.HeadSHA() == "":
		r.cmd.warnf("skillgate: no commit to attach the check run to (GITHUB_SHA is not set)")
		return
	}
	conclusion := "success"
	if failed {
		conclusion = "failure"
	}
	name := CheckRunName(in.Key)
	title := checkTitle(in, v)
	if s := report.NoAgentRan(in); s != "" {
		title = s + "; " + title
	}
	summary := report.Comment(in)
	if len(summary) > checkRunTextLimit {
		summary = clip(summary, checkRunTextLimit-200) + "\n\n(trimmed: the job summary has the full report)"
	}
	list := checkRunAnnotations(anns)
	first := list
	if len(first) > checkRunBatch {
		first = first[:checkRunBatch]
	}
	now := github.Timestamp{Time: r.d.Now()}
	opts := github.CreateCheckRunOptions{
		Name: name, HeadSHA: r.ev.HeadSHA(), Status: github.String("completed"), Conclusion: github.String(conclusion),
		CompletedAt: &now,
		Output:      &github.CheckRunOutput{Title: github.String(title), Summary: github.String(summary), Annotations: first},
	}
	if r.ev.RunID != 0 && r.ev.Owner != "" {
		opts.DetailsURL = github.String(fmt.Sprintf("%s/%s/actions/runs/%d", r.ev.ServerURL, r.ev.FullName(), r.ev.RunID))
	}
	var cr *github.CheckRun
	resp, err := r.createRecovering(func() (*github.Response, error) {
		var resp *github.Response
		var err error
		cr, resp, err = r.gh.Checks.CreateCheckRun(r.ctx, r.ev.Owner, r.ev.Repo, opts)
		return resp, err
	}, func() bool {
		cr = r.findCheckRun(opts)
		return cr != nil
	})
	r.noteRefused(resp, err)
	if err != nil {
		r.cmd.warnf("skillgate: the check run was not created: %s", apiProblem("creating the check run", "checks: write", resp, err))
		return
	}
	for i := checkRunBatch; i < len(list); i += checkRunBatch {
		batch := list[i:min(i+checkRunBatch, len(list))]
		_, resp, err := r.gh.Checks.UpdateCheckRun(r.ctx, r.ev.Owner, r.ev.Repo, cr.GetID(), github.UpdateCheckRunOptions{
			Name:   name,
			Output: &github.CheckRunOutput{Title: github.String(title), Summary: github.String(summary), Annotations: batch},
		})
		if err != nil {
			r.cmd.warnf("skillgate: the check run lacks %d annotation(s): %s", len(list)-i, apiProblem("updating the check run", "checks: write", resp, err))
			return
		}
	}
	r.cmd.infof("skillgate: check run %q: %s with %d annotation(s)", name, conclusion, len(list))
}

// findCheckRun looks for a check run this run created although its POST failed: same name,
// head commit, conclusion and title, completed at the time this run gave.
func (r *run) findCheckRun(opts github.CreateCheckRunOptions) *github.CheckRun {
	list, _, err := r.gh.Checks.ListCheckRunsForRef(r.ctx, r.ev.Owner, r.ev.Repo, opts.HeadSHA, &github.ListCheckRunsOptions{
		CheckName: github.String(opts.Name), Filter: github.String("all"), ListOptions: github.ListOptions{PerPage: 100},
	})
	if err != nil {
		return nil
	}
	for _, c := range list.CheckRuns {
		if c.GetName() == opts.Name && c.GetHeadSHA() == opts.HeadSHA && c.GetConclusion() == opts.GetConclusion() &&
			c.GetOutput().GetTitle() == opts.Output.GetTitle() && c.GetCompletedAt().Equal(opts.GetCompletedAt()) {
			return c
		}
	}
	return nil
}

// noteRefused records a write GitHub refused with 403 (a read-only token).
func (r *run) noteRefused(_ *github.Response, err error) {
	var ge *github.ErrorResponse
	if errors.As(err, &ge) && ge.Response != nil && ge.Response.StatusCode == http.StatusForbidden {
		r.writes.refused = true
	}
}

// CheckRunName is the check run's name for a key: the check to require in branch protection.
func CheckRunName(key string) string {
	if key != "" && key != "default" {
		return "skillgate (" + key + ")"
	}
	return "skillgate"
}

// checkTitle is the check run's title: the comment's headline in plain text, clipped, so the
// check and the comment say the same thing about every task.
func checkTitle(in *report.Input, v *pipeline.Vars) string {
	if v.SuitesRun == 0 {
		return "No suite affected by this change"
	}
	return clip(report.PlainMarkdown(report.Headline(in)), checkTitleLimit)
}

// checkTitleLimit keeps the check run's title to one line of the checks page.
const checkTitleLimit = 200
