package agent

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// A run the CLI refuses in this setup says so, with the fix, in an error doctor can recognise:
// Claude Code 2.1.332 as root without IS_SANDBOX (its real standard error, recorded), Gemini CLI
// in an untrusted folder.
func TestRunRefusalNamesTheFix(t *testing.T) {
	rootStderr, err := os.ReadFile("testdata/stderr/claude-code-2.1.332-root-bypass.stderr")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, executor, fixture, stderr, exit string
		wantWhat, wantFix                     string
	}{
		{"claude as root", "claude-code", "testdata/stderr/empty.jsonl", string(rootStderr), "1",
			"bypassPermissions when run as root", "set IS_SANDBOX=1"},
		{"gemini untrusted", "gemini", "testdata/stderr/empty.jsonl",
			"Approval mode overridden to \"default\" because the current folder is not trusted.\n" +
				"Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust this directory in interactive mode.\n",
			"55", "not told to trust", "GEMINI_CLI_TRUST_WORKSPACE"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := fakeRun{executor: tt.executor, mode: "replay", fixture: tt.fixture,
				env: map[string]string{"FAKE_EXIT": tt.exit, "FAKE_STDERR": tt.stderr}}.run(t)
			var refused *RefusedError
			if !errors.As(err, &refused) {
				t.Fatalf("error %v is not a refusal", err)
			}
			if !strings.Contains(refused.What, tt.wantWhat) || !strings.Contains(refused.Fix, tt.wantFix) || refused.Said == "" {
				t.Errorf("refusal %+v", refused)
			}
			if !strings.Contains(err.Error(), "fix: ") || !strings.HasPrefix(err.Error(), tt.executor+": exited with status "+tt.exit) {
				t.Errorf("error %q", err)
			}
		})
	}
	// A failure that is no refusal stays as it is.
	_, _, err = fakeRun{executor: "claude-code", mode: "replay", fixture: "testdata/stderr/empty.jsonl",
		env: map[string]string{"FAKE_EXIT": "1", "FAKE_STDERR": "Error: something else\n"}}.run(t)
	var refused *RefusedError
	if err == nil || errors.As(err, &refused) {
		t.Errorf("error %v", err)
	}
}
