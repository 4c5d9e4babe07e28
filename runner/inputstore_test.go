package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// Change detection without the inputs' content: a same-size rewrite made at once is found, a
// file touched but unchanged is not, and each distinct input is stored once for all runs.
func TestInputChangesWithoutKeepingContent(t *testing.T) {
	dir := t.TempDir()
	src := fixture(t, dir, "a.txt", "aaaa")
	tk := task("files", "p")
	tk.Files = []*spec.InputFile{
		{Path: "same-size.txt", Source: src},
		{Path: "touched.txt", Content: "bbbb", HasContent: true},
		{Path: "dir/copy.txt", Source: src},
	}
	s := suite(dir, tk)
	s.Config.TrialsPerTask = 3
	root := filepath.Join(dir, "ws")
	var stored []string
	exec := execFunc(func(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
		os.WriteFile(filepath.Join(req.Workspace, "same-size.txt"), []byte("AAAA"), 0o644)
		now := time.Now()
		os.Chtimes(filepath.Join(req.Workspace, "touched.txt"), now, now)
		entries, _ := filepath.Glob(filepath.Join(root, "*inputs-*", "*"))
		stored = entries
		return &results.AgentRun{FinalOutput: "ok"}, nil
	})
	res := run(t, s, Options{Executor: exec, WorkspaceRoot: root})
	for _, r := range res.Tasks[0].Runs {
		if len(r.ChangedFiles) != 1 || r.ChangedFiles[0].Path != "same-size.txt" || r.ChangedFiles[0].Change != "modified" {
			t.Errorf("run %d changes %+v", r.RunNumber, r.ChangedFiles)
		}
	}
	if len(stored) != 2 {
		t.Errorf("store holds %v, want the two distinct inputs", stored)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
	if data, _ := os.ReadFile(src); string(data) != "aaaa" {
		t.Errorf("the source changed: %q", data)
	}
}
