package graders

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/spec"
)

func TestFile(t *testing.T) {
	readme := `
type: file
name: readme_validation
config:
  must_exist: [README.md]
  must_not_exist: [.env]
  content_patterns:
    - path: README.md
      must_match: ["^# ", "## Usage"]
      must_not_match: ["TODO"]
`
	cases := []struct {
		name     string
		def      string // YAML; empty means the seed grader
		seed     string
		files    map[string]string
		score    float64
		passed   bool
		feedback string
	}{
		// waza-spec §2.4 worked example: no README: 6 checks, 5 failures.
		{"readme_validation without README", readme, "", map[string]string{"other.txt": "x"}, 1.0 / 6, false,
			"File must exist but not found: README.md; File not found for content check: README.md; " +
				"File README.md missing expected pattern (file not found): ^# ; File README.md missing expected pattern (file not found): ## Usage; " +
				"File README.md could not verify absence of pattern (file not found): TODO"},
		{"readme_validation with a good README", readme, "", map[string]string{"README.md": "# App\n\n## Usage\nrun it\n"}, 1, true, "All file checks passed"},
		{"readme_validation with a TODO and .env", readme, "", map[string]string{"README.md": "# App\n## Usage\nTODO", ".env": "K=V"}, 4.0 / 6, false,
			"File must not exist but found: .env; File README.md contains forbidden pattern: TODO"},
		{"seed project_structure passes", "", "project_structure", map[string]string{
			"src/index.ts": "", "package.json": `{"name": "my-app", "version": "1.0.0"}`, "tsconfig.json": "{}"}, 1, true, "All file checks passed"},
		{"seed project_structure: node_modules present, version 0.0.0", "", "project_structure", map[string]string{
			"src/index.ts": "", "package.json": `{"name":"my-app","version":"0.0.0"}`, "tsconfig.json": "{}", "node_modules/x/index.js": ""}, 6.0 / 8, false, // 3 + 2 + (1 + 1 + 1 readable) checks
			"File must not exist but found: node_modules/; File package.json contains forbidden pattern: \"version\":\\s*\"0\\.0\\.0\""},
		{"seed api_files half there", "", "api_files", map[string]string{"src/api.py": ""}, 0.5, false, "File must exist but not found: requirements.txt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			def := seedDefOrYAML(t, "file.yaml", c.seed, c.def)
			ws := writeFiles(t, c.files)
			r := grade(t, mustCompile(t, def), &Input{Run: runWith(""), Workspace: ws})
			assertResult(t, r, c.score, c.passed, c.feedback)
			if r.Details["workspace_dir"] != ws {
				t.Errorf("details: %v", r.Details)
			}
		})
	}
}

func seedDefOrYAML(t *testing.T, file, seed, src string) *spec.Grader {
	t.Helper()
	if seed != "" {
		return seedDef(t, file, seed)
	}
	return defFromYAML(t, src)
}

func TestFileDetailsKeepWazaFieldNames(t *testing.T) {
	r := grade(t, mustCompile(t, seedDef(t, "file.yaml", "project_structure")), &Input{Workspace: t.TempDir()})
	cps, ok := r.Details["content_patterns"].([]contentPatternDetail)
	if !ok || len(cps) != 1 || cps[0].Path != "package.json" || len(cps[0].MustMatch) != 1 {
		t.Fatalf("content_patterns: %#v", r.Details["content_patterns"])
	}
}

func TestFileWithoutWorkspace(t *testing.T) {
	r := grade(t, mustCompile(t, seedDef(t, "file.yaml", "api_files")), &Input{Run: runWith("")})
	assertResult(t, r, 0, false, "No workspace directory available for file grading")
}

func TestFileUnreadableAndEscapingLinks(t *testing.T) {
	outside := writeFiles(t, map[string]string{"secret.txt": "password"})
	ws := writeFiles(t, map[string]string{"dir/x": ""})
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(ws, "link.txt")); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	def := defFromYAML(t, `
type: file
name: f
config:
  content_patterns:
    - path: dir
      must_match: [x]
    - path: link.txt
      must_not_match: [password]
`)
	r := grade(t, mustCompile(t, def), &Input{Workspace: ws})
	// Two readable checks and two pattern checks, all failed: the directory cannot be read as a
	// file, and the link leaves the workspace, so it is not followed.
	if r.Score != 0 || r.Passed {
		t.Fatalf("got %.2f %q", r.Score, r.Feedback)
	}
	fs := r.Details["failures"].([]string)
	if len(fs) != 4 || !strings.HasPrefix(fs[0], "Failed to read file dir: ") ||
		fs[1] != "File dir missing expected pattern (file not found): x" ||
		!strings.HasPrefix(fs[2], "Failed to read file link.txt: ") ||
		fs[3] != "File link.txt could not verify absence of pattern (file not found): password" {
		t.Errorf("failures: %q", fs)
	}
}

func TestFileCompileErrors(t *testing.T) {
	checkCompileErrors(t, []compileErrorCase{
		{"absolute path", "type: file\nname: f\nconfig:\n  must_exist:\n    - ok.txt\n    - /etc/passwd\n", "6:7", `"/etc/passwd" is absolute`},
		{"escaping path", "type: file\nname: f\nconfig:\n  must_not_exist: [a/../../x]\n", "4:20", "leaves the run's workspace"},
		{"escaping content path", "type: file\nname: f\nconfig:\n  content_patterns:\n    - path: ../x\n      must_match: [a]\n", "5:13", "leaves the run's workspace"},
		{"content pattern without path", "type: file\nname: f\nconfig:\n  content_patterns:\n    - must_match: [a]\n", "5:7", "content pattern without a path"},
		{"invalid content regex", "type: file\nname: f\nconfig:\n  content_patterns:\n    - path: a\n      must_not_match: [ok, '[z-a]']\n", "6:28", "invalid regular expression"},
		{"wrong type", "type: file\nname: f\nconfig:\n  content_patterns: README.md\n", "4:21", "config.content_patterns must be a list of mappings"},
	})
}
