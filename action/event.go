package action

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/google/go-github/v60/github"
)

// Event is what the action needs from the workflow run: the repository, and the pull request or
// push that triggered it.
type Event struct {
	Name  string // GITHUB_EVENT_NAME
	Owner string
	Repo  string
	// SHA is GITHUB_SHA: for pull requests the merge commit, for pushes the pushed commit.
	SHA           string
	Ref           string
	DefaultBranch string
	// PR is set for pull_request and pull_request_target events; in report mode, for the pull
	// request the bundle was verified to belong to.
	PR *PullRequest
	// Run is the run that triggered a workflow_run event (the evaluation the report mode
	// reports on).
	Run *WorkflowRun
	// Before is the commit a push replaced (all zeros for a new branch).
	Before string
	// Workflow is the workflow file name (evals.yml), from GITHUB_WORKFLOW_REF; WorkflowName is
	// its `name:`.
	Workflow     string
	WorkflowName string
	RunID        int64
	ServerURL    string
}

// PullRequest is the pull request of a pull_request event.
type PullRequest struct {
	Number   int
	HeadSHA  string
	HeadRef  string
	HeadRepo string // owner/name of the head repository
	BaseSHA  string
	BaseRef  string
	HTMLURL  string
}

// WorkflowRun is the triggering run of a workflow_run event. Everything here comes from GitHub,
// not from the run's artifacts: it is what the report mode checks the untrusted bundle against.
type WorkflowRun struct {
	ID         int64
	Name       string
	Event      string // the triggering run's event: pull_request, push, …
	Conclusion string
	HeadSHA    string
	HeadBranch string
	HeadRepo   string // owner/name of the head repository (a fork's for fork pull requests)
	// Workflow is the run's workflow file name (evals.yml), from workflow_run.path.
	Workflow string
	// PullRequests are the numbers GitHub lists for the run: empty for pull requests from forks.
	PullRequests []int
}

// Fork reports whether the pull request comes from another repository (its token is read-only).
func (e *Event) Fork() bool {
	return e.PR != nil && e.PR.HeadRepo != "" && !strings.EqualFold(e.PR.HeadRepo, e.Owner+"/"+e.Repo)
}

// FullName is owner/name.
func (e *Event) FullName() string { return e.Owner + "/" + e.Repo }

// HeadSHA is the commit results belong to: the pull request's head (not the merge commit), or
// the pushed commit.
func (e *Event) HeadSHA() string {
	if e.PR != nil && e.PR.HeadSHA != "" {
		return e.PR.HeadSHA
	}
	return e.SHA
}

// OnDefaultBranch reports whether a push went to the repository's default branch.
func (e *Event) OnDefaultBranch() bool {
	return e.PR == nil && e.DefaultBranch != "" && e.Ref == "refs/heads/"+e.DefaultBranch
}

// maxEventSize bounds the event file read (GitHub's payloads are at most 25 MB).
const maxEventSize = 32 << 20

// ErrNoEvent means the event file is missing: the action runs every suite without pull-request
// features.
var ErrNoEvent = errors.New("event file missing")

// ReadEvent reads the workflow context from the environment and the event file. A missing event
// file returns the context with ErrNoEvent; an unreadable or malformed one an error naming it.
func ReadEvent(getenv func(string) string) (*Event, error) {
	e := &Event{
		Name:         getenv("GITHUB_EVENT_NAME"),
		SHA:          getenv("GITHUB_SHA"),
		Ref:          getenv("GITHUB_REF"),
		WorkflowName: getenv("GITHUB_WORKFLOW"),
		ServerURL:    strings.TrimRight(getenv("GITHUB_SERVER_URL"), "/"),
	}
	if e.ServerURL == "" {
		e.ServerURL = "https://github.com"
	}
	fmt.Sscan(getenv("GITHUB_RUN_ID"), &e.RunID)
	e.Owner, e.Repo, _ = strings.Cut(getenv("GITHUB_REPOSITORY"), "/")
	e.Workflow = workflowFile(getenv("GITHUB_WORKFLOW_REF"))
	path := getenv("GITHUB_EVENT_PATH")
	if path == "" {
		return e, fmt.Errorf("%w: GITHUB_EVENT_PATH is not set", ErrNoEvent)
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return e, fmt.Errorf("%w: %s does not exist", ErrNoEvent, path)
	}
	if err != nil {
		return e, fmt.Errorf("reading the event file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEventSize+1))
	if err != nil {
		return e, fmt.Errorf("reading the event file %s: %w", path, err)
	}
	if len(data) > maxEventSize {
		return e, fmt.Errorf("the event file %s is larger than %d MiB", path, maxEventSize>>20)
	}
	if err := decodeEvent(e, data); err != nil {
		return e, fmt.Errorf("the event file %s: %w", path, err)
	}
	return e, nil
}

// decodeEvent fills e from a webhook payload of event e.Name.
func decodeEvent(e *Event, data []byte) error {
	var common struct {
		Repository *github.Repository `json:"repository"`
	}
	if err := json.Unmarshal(data, &common); err != nil {
		return fmt.Errorf("not a JSON webhook payload: %w", err)
	}
	if r := common.Repository; r != nil {
		if e.Owner == "" || e.Repo == "" {
			if owner, name, ok := strings.Cut(r.GetFullName(), "/"); ok {
				e.Owner, e.Repo = owner, name
			}
		}
		e.DefaultBranch = r.GetDefaultBranch()
	}
	switch e.Name {
	case "pull_request", "pull_request_target":
		var ev github.PullRequestEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			return fmt.Errorf("not a pull_request payload: %w", err)
		}
		pr := ev.GetPullRequest()
		if pr == nil || pr.GetHead().GetSHA() == "" || pr.GetBase().GetSHA() == "" {
			return errors.New("pull_request payload without pull_request.head.sha and base.sha")
		}
		number := ev.GetNumber()
		if number == 0 {
			number = pr.GetNumber()
		}
		e.PR = &PullRequest{
			Number:   number,
			HeadSHA:  pr.GetHead().GetSHA(),
			HeadRef:  pr.GetHead().GetRef(),
			HeadRepo: pr.GetHead().GetRepo().GetFullName(),
			BaseSHA:  pr.GetBase().GetSHA(),
			BaseRef:  pr.GetBase().GetRef(),
			HTMLURL:  pr.GetHTMLURL(),
		}
		if e.DefaultBranch == "" {
			e.DefaultBranch = pr.GetBase().GetRepo().GetDefaultBranch()
		}
	case "workflow_run":
		var ev github.WorkflowRunEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			return fmt.Errorf("not a workflow_run payload: %w", err)
		}
		var paths struct {
			Run struct {
				Path string `json:"path"`
			} `json:"workflow_run"`
			Workflow struct {
				Path string `json:"path"`
			} `json:"workflow"`
		}
		json.Unmarshal(data, &paths)
		wr := ev.GetWorkflowRun()
		if wr == nil || wr.GetID() == 0 || wr.GetHeadSHA() == "" {
			return errors.New("workflow_run payload without workflow_run.id and head_sha")
		}
		path := paths.Run.Path
		if path == "" {
			path = paths.Workflow.Path
		}
		e.Run = &WorkflowRun{
			ID: wr.GetID(), Name: wr.GetName(), Event: wr.GetEvent(), Conclusion: wr.GetConclusion(),
			HeadSHA: wr.GetHeadSHA(), HeadBranch: wr.GetHeadBranch(), HeadRepo: wr.GetHeadRepository().GetFullName(),
			Workflow: workflowFile(path),
		}
		for _, pr := range wr.PullRequests {
			if n := pr.GetNumber(); n > 0 {
				e.Run.PullRequests = append(e.Run.PullRequests, n)
			}
		}
	case "push":
		var ev github.PushEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			return fmt.Errorf("not a push payload: %w", err)
		}
		e.Before = ev.GetBefore()
		if e.SHA == "" {
			e.SHA = ev.GetAfter()
		}
		if e.Ref == "" {
			e.Ref = ev.GetRef()
		}
		if b := ev.GetRepo().GetDefaultBranch(); b != "" {
			e.DefaultBranch = b
		}
	}
	return nil
}

// workflowFile turns GITHUB_WORKFLOW_REF (owner/repo/.github/workflows/evals.yml@refs/…) into
// the workflow file name the runs API accepts (evals.yml).
func workflowFile(ref string) string {
	ref, _, _ = strings.Cut(ref, "@")
	if i := strings.LastIndex(ref, "/"); i >= 0 {
		ref = ref[i+1:]
	}
	return ref
}

// zeroSHA reports whether a commit id is missing or all zeros (a push that created a branch).
func zeroSHA(sha string) bool {
	return strings.Trim(sha, "0") == ""
}
