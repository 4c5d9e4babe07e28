package reap

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestOwnerOf(t *testing.T) {
	for name, want := range map[string]string{
		"skillgate-123.456-abc": "123.456", "skillgate-99-x": "99", "skillgate-trigger-1": "", "other-1-x": "", "skillgate-123": "",
	} {
		got, ok := ownerOf(name)
		if got != want || ok != (want != "") {
			t.Errorf("ownerOf(%q) = %q %v, want %q", name, got, ok, want)
		}
	}
}

// Sweep removes the workspaces of dead owners only.
func TestSweepWorkspaces(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip(err)
	}
	tmp := t.TempDir()
	gone := filepath.Join(tmp, "skillgate-"+strconv.Itoa(dead.Process.Pid)+"-x1")
	mine := filepath.Join(tmp, WorkspacePrefix()+"x2")
	other := filepath.Join(tmp, "skillgate-notanowner")
	for _, d := range []string{gone, mine, other} {
		os.Mkdir(d, 0o755)
	}
	var log bytes.Buffer
	Sweep(tmp, &log)
	if _, err := os.Stat(gone); err == nil && !alive(strconv.Itoa(dead.Process.Pid)) {
		t.Errorf("the dead owner's workspace is still there")
	}
	for _, d := range []string{mine, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed", d)
		}
	}
}

func TestChildEnv(t *testing.T) {
	parent := []string{"PATH=/bin", "SKILLGATE_JUDGE_API_KEY=sk-secret", "SKILLGATE_JUDGE_BASE_URL=https://judge.example",
		"skillgate_judge_model=m", "SKILLGATE_JUDGEMENT=kept", "SKILLGATE_SUITE=outer", "GITHUB_TOKEN=ghs_x", "=C:=odd"}
	got := childEnv(parent, "SKILLGATE_SUITE=inner", "EXTRA=1")
	want := []string{"PATH=/bin", "SKILLGATE_JUDGEMENT=kept", "SKILLGATE_SUITE=outer", "GITHUB_TOKEN=ghs_x", "=C:=odd",
		EnvVar + "=" + Owner(), "SKILLGATE_SUITE=inner", "EXTRA=1"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("childEnv =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A child started with Environ sees neither the judge's key nor loses the rest.
func TestEnvironReachesTheChild(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip(err)
	}
	t.Setenv("SKILLGATE_JUDGE_API_KEY", "sk-secret")
	t.Setenv("SKILLGATE_TEST_VISIBLE", "yes")
	cmd := exec.Command(sh, "-c", `echo "[$SKILLGATE_JUDGE_API_KEY] [$SKILLGATE_TEST_VISIBLE] [$X]"`)
	cmd.Env = Environ("X=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "[] [yes] [1]" {
		t.Errorf("child saw %s", got)
	}
	tagged := exec.Command(sh, "-c", `echo "[$SKILLGATE_JUDGE_API_KEY] [$`+EnvVar+`]"`)
	Tag(tagged)
	if out, err := tagged.Output(); err != nil || strings.TrimSpace(string(out)) != "[] ["+Owner()+"]" {
		t.Errorf("a tagged child without Env saw %s (%v)", out, err)
	}
}
