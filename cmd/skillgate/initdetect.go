package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/skillgate/skillgate/internal/childenv"
)

// defaultBranch is the repository's default branch, whose pushes record the baseline: the
// GitHub event's repository.default_branch inside a workflow, else what the clone says origin's
// HEAD is, else main. how says where it came from.
func (a *app) defaultBranch(dir string) (branch, how string) {
	if path := a.getenv("GITHUB_EVENT_PATH"); path != "" {
		var ev struct {
			Repository struct {
				DefaultBranch string `json:"default_branch"`
			} `json:"repository"`
		}
		if data, err := os.ReadFile(path); err == nil && json.Unmarshal(data, &ev) == nil && validBranch(ev.Repository.DefaultBranch) {
			return ev.Repository.DefaultBranch, "from the GitHub event"
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	git := exec.CommandContext(ctx, "git", "-C", dir, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD")
	git.Env = childenv.For("")
	out, err := git.Output()
	if b, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "refs/remotes/origin/"); err == nil && ok && validBranch(b) {
		return b, "from git's origin/HEAD"
	}
	return "main", "no GitHub event, and git names no origin/HEAD: pass --branch if it is another"
}

// validBranch accepts a branch name that can be written unquoted in a workflow's branches list.
func validBranch(b string) bool {
	return b != "" && !strings.ContainsAny(b, " \t\n'\"*?[]{},:#&!|>%`")
}

// agentSetup is how a workflow installs an agent CLI and hands it its key, as docs/agents.md
// shows for each executor (a test keeps the two in step).
type agentSetup struct {
	Executor string
	Package  string // npm package
	Env      string // the variable the CLI reads
	Secret   string // the repository secret init maps to it
	// Vars are further variables the CLI reads (its endpoint, its model), mapped from the
	// repository variables of the same names.
	Vars []string
}

var agentSetups = map[string]agentSetup{
	"claude-code": {"claude-code", "@anthropic-ai/claude-code", "ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY", nil},
	"codex":       {"codex", "@openai/codex", "CODEX_API_KEY", "OPENAI_API_KEY", nil},
	"copilot":     {"copilot", "@github/copilot", "COPILOT_GITHUB_TOKEN", "COPILOT_GITHUB_TOKEN", nil},
	"gemini":      {"gemini", "@google/gemini-cli", "GEMINI_API_KEY", "GEMINI_API_KEY", nil},
	"qwen-code":   {"qwen-code", "@qwen-code/qwen-code", "OPENAI_API_KEY", "OPENAI_API_KEY", []string{"OPENAI_BASE_URL", "OPENAI_MODEL"}},
	"opencode":    {"opencode", "opencode-ai", "ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY", nil},
}

// compositeRef is the composite action of the same release as ref (OWNER/REPO@REF): the
// container action has no agent CLI, the composite one runs on the runner where the CLI is
// installed (docs/action.md#the-composite-action).
func compositeRef(ref string) string {
	path, version, _ := strings.Cut(ref, "@")
	if strings.HasSuffix(path, "/composite") {
		return ref
	}
	return path + "/composite@" + version
}
