package runner

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/childenv"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func TestRunSuitesWritesEachResultAsItFinishes(t *testing.T) {
	a := suite(t.TempDir(), task("t", "hello", grader(t, "g", "want: hello")))
	b := suite(t.TempDir(), task("t", "hello", grader(t, "g", "want: nope")))
	b.Name = "second"
	// A before_run hook that fails stops its suite only.
	c := suite(t.TempDir(), task("t", "hello", grader(t, "g", "want: hello")))
	c.Name = "broken"
	c.Hooks.BeforeRun = []*spec.Hook{{Command: "exit 7", ErrorOnFail: true, ExitCodes: []int{0}}}
	prepared := []*Prepared{{Suite: a, Graders: compile(t, a)}, {Suite: c, Graders: compile(t, c)}, {Suite: b, Graders: compile(t, b)}}
	out := t.TempDir()
	var written []string
	ran, err := RunSuites(context.Background(), prepared, SuitesOptions{
		OutDir:  out,
		Written: func(res *results.SuiteResult, file string) error { written = append(written, file); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	wantFiles := []string{filepath.Join(out, "results", "demo.json"), filepath.Join(out, "results", "second.json")}
	if strings.Join(ran.Files, ",") != strings.Join(wantFiles, ",") || strings.Join(written, ",") != strings.Join(wantFiles, ",") {
		t.Errorf("files %v, written %v", ran.Files, written)
	}
	if len(ran.Results) != 2 || ran.Results[0].Gate.Passed != true || ran.Results[1].Gate.Passed {
		t.Errorf("results %+v", ran.Results)
	}
	if len(ran.SetupErrors) != 1 || !strings.HasPrefix(ran.SetupErrors[0].Error(), "broken: ") {
		t.Errorf("setup errors %v", ran.SetupErrors)
	}
	if res, err := results.ReadFile(wantFiles[1]); err != nil || res.EvalName != "second" {
		t.Errorf("results file: %v", err)
	}
}

func TestRunSuitesBuildsExecutorsFirst(t *testing.T) {
	a := suite(t.TempDir(), task("t", "hello", grader(t, "g", "want: hello")))
	prepared := []*Prepared{{Suite: a, Graders: compile(t, a)}}
	ran, err := RunSuites(context.Background(), prepared, SuitesOptions{Executor: ExecutorOptions{Name: "no-such-agent"}, OutDir: t.TempDir()})
	var setup *SetupError
	if !errors.As(err, &setup) || !strings.Contains(err.Error(), a.File) || len(ran.Results) != 0 {
		t.Errorf("err %v, results %d", err, len(ran.Results))
	}
}

func TestRunSuitesStopsWhenCancelled(t *testing.T) {
	a := suite(t.TempDir(), task("t", "hello", grader(t, "g", "want: hello")))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran, err := RunSuites(ctx, []*Prepared{{Suite: a, Graders: compile(t, a)}}, SuitesOptions{OutDir: t.TempDir()})
	if err != nil || len(ran.Results) != 0 {
		t.Errorf("err %v, results %d", err, len(ran.Results))
	}
}

// A run names the credentials of its environment that no child sees, so a hook or agent that
// misses one can be given it; the agents' keys, handed and listed ones are not named, nor values.
func TestRunSuitesNamesHeldBackCredentials(t *testing.T) {
	t.Setenv("NPM_TOKEN", "npm_heldBackToken0123456789")
	t.Setenv("DEPLOY_PASSWORD", "heldBackPassword0123")
	t.Setenv("MY_PROVIDER_API_KEY", "sk-passedProviderKey0123")
	t.Setenv(childenv.PassEnv, "MY_PROVIDER_API_KEY")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-agentKey0123456")
	t.Setenv("COPILOT_GITHUB_TOKEN", "github_pat_handedToken0123")
	t.Setenv("GITHUB_TOKEN", "ghs_neverPassedToken0123")
	a := suite(t.TempDir(), task("t", "hello", grader(t, "g", "want: hello")))
	var log bytes.Buffer
	if _, err := RunSuites(context.Background(), []*Prepared{{Suite: a, Graders: compile(t, a)}}, SuitesOptions{OutDir: t.TempDir(), Run: Options{Log: &log}}); err != nil {
		t.Fatal(err)
	}
	want := "skillgate: held back from agents, hooks and graders: DEPLOY_PASSWORD, NPM_TOKEN (credentials"
	if !strings.Contains(log.String(), want) {
		t.Errorf("the log does not say %q:\n%s", want, log.String())
	}
	for _, s := range []string{"npm_heldBack", "MY_PROVIDER", "ANTHROPIC", "COPILOT", "GITHUB_TOKEN"} {
		if strings.Contains(log.String(), s) {
			t.Errorf("the log names %s:\n%s", s, log.String())
		}
	}
}
