//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillgate/skillgate/internal/proctest"
	"github.com/skillgate/skillgate/results"
)

// A skillgate killed with SIGKILL mid-run loses nothing that finished: `skillgate report` (or
// the next run) recovers it from the journal, marked incomplete, and no process it started is
// left running.
func TestKilledRunIsRecovered(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	marker, out := filepath.Join(dir, "marker"), filepath.Join(dir, "out")
	cmd := exec.Command(self, "run", "testdata/killed", "--out", out, "--quiet")
	cmd.Env = append(os.Environ(), "SKILLGATE_TEST_AS_MAIN=1", "SKILLGATE_TEST_MARKER="+marker, "TMPDIR="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("task b's hook never ran:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	journal := results.JournalPath(results.PathIn(out, "killed"))
	if data, err := os.ReadFile(journal); err != nil || !strings.Contains(string(data), `"test_id":"a"`) {
		t.Fatalf("the journal lacks task a: %v\n%s", err, data)
	}
	shPID, sleepPID := readPID(t, marker+".sh"), readPID(t, marker+".sleep")
	// A workspace as the killed run would leave one (task b's is not made before its hook).
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	_, after, _ := strings.Cut(string(stat), ") ")
	workspace := filepath.Join(dir, "skillgate-"+strconv.Itoa(cmd.Process.Pid)+"."+strings.Fields(after)[19]+"-b1")
	if err := os.Mkdir(workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	// The hook's shell is a direct child: the kernel kills it with skillgate (Pdeathsig).
	waitGone(t, shPID, "the hook's shell")

	// `skillgate report` recovers the finished task and stops what the run left (the sleep).
	rep := exec.Command(self, "report", results.PathIn(out, "killed"), "--out", filepath.Join(dir, "reports"))
	rep.Env = append(os.Environ(), "SKILLGATE_TEST_AS_MAIN=1", "TMPDIR="+dir)
	text, err := rep.CombinedOutput()
	if code := rep.ProcessState.ExitCode(); code != exitFailed {
		t.Fatalf("report exit %d (%v):\n%s", code, err, text)
	}
	if !strings.Contains(string(text), "recovered 1 finished task(s)") {
		t.Errorf("report output:\n%s", text)
	}
	waitGone(t, sleepPID, "the hook's child")

	// The next run with the same --out keeps the recovered results and removes the workspaces.
	os.Remove(marker)
	again := exec.Command(self, "run", "testdata/killed", "--out", out, "--quiet", "--task", "a")
	again.Env = append(os.Environ(), "SKILLGATE_TEST_AS_MAIN=1", "SKILLGATE_TEST_MARKER="+marker, "TMPDIR="+dir)
	if text, err := again.CombinedOutput(); err != nil {
		t.Fatalf("rerun: %v\n%s", err, text)
	}
	if _, err := os.Stat(workspace); err == nil {
		t.Errorf("workspace %s of the killed run is still there", workspace)
	}
	if _, err := os.Stat(journal); err == nil {
		t.Errorf("the journal is still there after a finished run")
	}
}

// The next run recovers a killed run's journal into <suite>.recovered.json.
func TestRerunRecoversAKilledRunsJournal(t *testing.T) {
	out := t.TempDir()
	file := results.PathIn(out, "hello")
	os.MkdirAll(filepath.Dir(file), 0o755)
	j, err := results.CreateJournal(results.JournalPath(file), &results.SuiteResult{EvalName: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	j.Append(&results.TaskResult{ID: "earlier", Name: "earlier", Status: results.StatusPassed, Runs: []*results.RunResult{}})
	j.Close() // as after a kill: the lock goes with the process
	code, _, stderr := run(t, nil, "run", hello, "--out", out, "--quiet")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	rec := readResults(t, filepath.Join(out, "results", "hello.recovered.json"))
	if !rec.Incomplete || len(rec.Tasks) != 1 || rec.Tasks[0].ID != "earlier" {
		t.Errorf("recovered %+v", rec)
	}
	if !strings.Contains(stderr, "its 1 finished task(s) were recovered into") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

func readPID(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitGone waits until pid has exited (a zombie counts: it no longer runs).
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	if !proctest.WaitGone(pid, 10*time.Second) {
		t.Errorf("%s (pid %d) is still running", what, pid)
	}
}
