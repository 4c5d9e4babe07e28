package action

import (
	"strings"
	"testing"

	"github.com/skillgate/skillgate/report"
)

// Only comments by the identity the action runs as are skillgate's: a marked comment by anyone
// else is neither edited nor deleted, and the action posts its own.
func TestMarkedCommentByAnotherUserIsLeftAlone(t *testing.T) {
	for _, tt := range []struct {
		name      string
		self      string
		tokenUser bool // GET /user answers (a PAT); otherwise 403 as for installation tokens
		noViewer  bool // GraphQL refuses the viewer too: the identity comes from the created comment
	}{
		{"GITHUB_TOKEN", "github-actions[bot]", false, false},
		{"app token", "skillgate-ci[bot]", false, false},
		{"personal token", "release-bot", true, false},
		{"identity unknown until the comment is created", "github-actions[bot]", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "pull_request.synchronize")
			h.gh.prFiles = [][2]string{{"evals/greet/eval.yaml", ""}}
			h.input(InBaseline, "none")
			h.gh.self, h.gh.tokenUser, h.gh.noViewer = tt.self, tt.tokenUser, tt.noViewer
			marker := report.Marker("evals")
			// Older than anything the action writes, and marked: the old code edited it and
			// deleted the bot's own comment.
			squatter := h.gh.addComment(marker+"\nnot the real report", "mallory")
			if code := h.run(); code != ExitOK {
				t.Fatalf("exit %d", code)
			}
			if squatter.Body != marker+"\nnot the real report" {
				t.Errorf("the other user's comment was edited: %q", squatter.Body)
			}
			var own int
			for _, c := range h.gh.comments {
				if c.Login == tt.self {
					own++
				}
			}
			if len(h.gh.comments) != 2 || own != 1 {
				t.Fatalf("%d comments, %d by %s; want the other user's and one own", len(h.gh.comments), own, tt.self)
			}
			if h.gh.called("DELETE ") != 0 {
				t.Errorf("a comment was deleted")
			}
			// The next run edits its own comment; the other one stays as it is.
			if code := h.run(); code != ExitOK {
				t.Fatalf("second run: exit %d", code)
			}
			// Without an identity from the API the run creates a comment, learns its identity
			// from it, and then removes that duplicate of its own.
			creations, deletions := 1, 0
			if tt.noViewer {
				creations, deletions = 2, 1
			}
			if len(h.gh.comments) != 2 || h.gh.called("POST /repos/acme/demo/issues/7/comments") != creations || h.gh.called("DELETE ") != deletions {
				t.Errorf("second run: %d comments, %d creations, %d deletions", len(h.gh.comments),
					h.gh.called("POST /repos/acme/demo/issues/7/comments"), h.gh.called("DELETE "))
			}
			if squatter.Body != marker+"\nnot the real report" || !strings.HasPrefix(h.gh.comments[1].Body, marker) {
				t.Errorf("second run: comments %q / %q", squatter.Body, h.gh.comments[1].Body)
			}
		})
	}
}

// A POST that failed with a 5xx may have been carried out: the action lists again before it
// tries again, so a lost reply does not make a duplicate, and a real failure is retried.
func TestCreateSurvivesTransientFailures(t *testing.T) {
	for _, tt := range []struct {
		name      string
		faults    map[string][]int
		failAfter map[string]int
	}{
		{"502 before creating", map[string][]int{"create-comment": {502}, "create-check": {503}}, nil},
		{"created, reply lost", nil, map[string]int{"create-comment": 1, "create-check": 1}},
		{"two failures", map[string][]int{"create-comment": {502, 500}, "create-check": {502, 504}}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "pull_request.synchronize")
			h.gh.prFiles = [][2]string{{"evals/greet/eval.yaml", ""}}
			h.input(InCheckRun, "true")
			h.input(InBaseline, "none")
			if tt.faults != nil {
				h.gh.faults = tt.faults
			}
			if tt.failAfter != nil {
				h.gh.failAfter = tt.failAfter
			}
			if code := h.run(); code != ExitOK {
				t.Fatalf("exit %d", code)
			}
			if w := h.annotations("warning"); len(w) != 0 {
				t.Errorf("warnings: %v", w)
			}
			if len(h.gh.comments) != 1 {
				t.Errorf("%d comments, want 1", len(h.gh.comments))
			}
			if len(h.gh.checkRuns) != 1 {
				t.Errorf("%d check runs, want 1", len(h.gh.checkRuns))
			}
			if !strings.HasSuffix(h.outputs()[OutCommentURL], "#issuecomment-1001") {
				t.Errorf("comment-url = %s", h.outputs()[OutCommentURL])
			}
		})
	}
}
