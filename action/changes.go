package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/skillgate/skillgate/internal/childenv"
)

// changeSet is what a pull request changes.
type changeSet struct {
	mergeBase string
	files     []string // repository-relative, slash-separated; renames list both names
	via       string   // "git" or "api"
	all       bool     // more files than can be listed: treat every suite as affected
}

// maxPRFiles is the most files the pull-request files API lists (30 pages of 100).
const maxPRFiles = 3000

// detectChanges finds the merge base and the changed files of the pull request: with git when
// the checkout has the history of both commits (fetch-depth: 0), else through the API.
func (r *run) detectChanges() (*changeSet, error) {
	pr := r.ev.PR
	if cs, err := r.gitChanges(pr.BaseSHA, pr.HeadSHA); err == nil {
		return cs, nil
	}
	if r.gh == nil {
		return nil, errors.New("no github-token and no git history of both commits")
	}
	base, err := r.apiMergeBase(pr.BaseSHA, pr.HeadSHA)
	if err != nil {
		return nil, err
	}
	cs := &changeSet{mergeBase: base, via: "api"}
	opts := &github.ListOptions{PerPage: 100}
	for {
		files, resp, err := r.gh.PullRequests.ListFiles(r.ctx, r.ev.Owner, r.ev.Repo, pr.Number, opts)
		if err != nil {
			return nil, errors.New(apiProblem("listing the pull request's files", "pull-requests: read", resp, err))
		}
		for _, f := range files {
			cs.files = append(cs.files, f.GetFilename())
			if prev := f.GetPreviousFilename(); prev != "" {
				cs.files = append(cs.files, prev)
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	cs.all = len(cs.files) >= maxPRFiles
	return cs, nil
}

// apiMergeBase asks the compare API for the merge base of two commits.
func (r *run) apiMergeBase(base, head string) (string, error) {
	cmp, resp, err := r.gh.Repositories.CompareCommits(r.ctx, r.ev.Owner, r.ev.Repo, base, head, &github.ListOptions{PerPage: 1})
	if err != nil {
		return "", errors.New(apiProblem("comparing "+short(base)+"..."+short(head), "contents: read", resp, err))
	}
	sha := cmp.GetMergeBaseCommit().GetSHA()
	if sha == "" {
		return "", fmt.Errorf("the compare API gave no merge base for %s...%s", short(base), short(head))
	}
	return sha, nil
}

// mergeBase is the commit the pull request's baseline belongs to: known from the change
// detection, else asked from git or the API. For a push it is the commit the push replaced.
func (r *run) baselineCommit() (string, error) {
	switch {
	case r.ev.PR != nil && r.changes != nil:
		return r.changes.mergeBase, nil
	case r.ev.PR != nil:
		if sha, err := r.git("merge-base", r.ev.PR.BaseSHA, r.ev.PR.HeadSHA); err == nil {
			return strings.TrimSpace(sha), nil
		}
		if r.gh == nil {
			return "", errors.New("no github-token to find the merge base")
		}
		return r.apiMergeBase(r.ev.PR.BaseSHA, r.ev.PR.HeadSHA)
	case r.ev.Name == "push" && !zeroSHA(r.ev.Before):
		return r.ev.Before, nil
	}
	return "", fmt.Errorf("a %s event has no base commit to compare with", orWord(r.ev.Name, "workflow"))
}

// gitChanges lists the change with git, when git and both commits are available.
func (r *run) gitChanges(base, head string) (*changeSet, error) {
	mb, err := r.git("merge-base", base, head)
	if err != nil {
		return nil, err
	}
	mb = strings.TrimSpace(mb)
	out, err := r.git("diff", "--no-renames", "--name-only", "-z", mb, head)
	if err != nil {
		return nil, err
	}
	cs := &changeSet{mergeBase: mb, via: "git"}
	for _, f := range strings.Split(out, "\x00") {
		if f != "" {
			cs.files = append(cs.files, f)
		}
	}
	return cs, nil
}

// git runs a git command in the checkout; it fails when git or the history is missing. The
// checkout is root-owned inside the container, so safe.directory is set for this call only.
func (r *run) git(args ...string) (string, error) {
	bin, err := r.d.LookPath("git")
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(r.repoRoot, ".git")); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(r.ctx, 2*time.Minute)
	defer cancel()
	full := append([]string{"-c", "safe.directory=*", "-C", r.repoRoot}, args...)
	cmd := exec.CommandContext(ctx, bin, full...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = childenv.For("", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

func orWord(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
