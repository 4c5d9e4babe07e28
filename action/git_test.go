package action

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
)

// gitRepo turns the harness workspace into a git repository with the history of a pull
// request: a base commit, a commit on main after the branch point, and the branch's head commit
// changing greet's skill. It returns the merge base, main's tip and the head.
func gitRepo(t *testing.T, h *harness) (mergeBase, mainTip, head string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", h.ws}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	mergeBase = git("rev-parse", "HEAD")
	git("checkout", "-q", "-b", "friendlier-greeter")
	h.write("evals/greet/skills/greeter/SKILL.md", "---\nname: greeter\ndescription: Greets warmly.\n---\n\nSay hello warmly.\n")
	git("commit", "-q", "-am", "friendlier")
	head = git("rev-parse", "HEAD")
	git("checkout", "-q", "main")
	h.write("docs/notes.md", "notes\n")
	git("add", "-A")
	git("commit", "-q", "-m", "docs on main")
	mainTip = git("rev-parse", "HEAD")
	git("checkout", "-q", "friendlier-greeter")
	return mergeBase, mainTip, head
}

// TestGitHistoryInsteadOfAPI: with the full history checked out (fetch-depth: 0) and git
// present, the change and the rerun baseline come from git; the API is not asked.
func TestGitHistoryInsteadOfAPI(t *testing.T) {
	h := newHarness(t, "pull_request.synchronize")
	h.git = true
	mergeBase, mainTip, head := gitRepo(t, h)
	var ev map[string]any
	data, _ := os.ReadFile(h.env["GITHUB_EVENT_PATH"])
	json.Unmarshal(data, &ev)
	pr := ev["pull_request"].(map[string]any)
	pr["head"].(map[string]any)["sha"] = head
	pr["base"].(map[string]any)["sha"] = mainTip
	data, _ = json.Marshal(ev)
	os.WriteFile(h.env["GITHUB_EVENT_PATH"], data, 0o644)
	h.input(InBaseline, "rerun")

	if code := h.run(); code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, h.stdout.String(), h.stderr.String())
	}
	if got := h.outputs()[OutSuitesRun]; got != `["greet"]` {
		t.Errorf("suites-run = %s, want the suite whose skill changed", got)
	}
	for _, api := range []string{"GET /repos/acme/demo/compare", "GET /repos/acme/demo/pulls", "GET /repos/acme/demo/tarball"} {
		if n := h.gh.called(api); n != 0 {
			t.Errorf("%s called %d times with git history present", api, n)
		}
	}
	res, err := results.ReadFile(filepath.Join(h.ws, ".skillgate/results/greet.json"))
	if err != nil {
		t.Fatal(err)
	}
	if b := res.Provenance.Baseline; b.Method != BaselineRerun || b.Commit != mergeBase {
		t.Errorf("baseline = %+v, want a rerun at the merge base %s", b, mergeBase)
	}
	base, err := results.ReadFile(filepath.Join(h.ws, ".skillgate/baseline/results/greet.json"))
	if err != nil || base.Provenance.GitCommit != mergeBase {
		t.Errorf("rerun results: %v %+v", err, base)
	}
}
