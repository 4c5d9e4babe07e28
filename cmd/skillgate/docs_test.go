package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/skillgate/skillgate/pipeline"
	"go.yaml.in/yaml/v3"
)

// repoRoot is the repository, seen from this package's folder.
const repoRoot = "../.."

var (
	// A citation in a comment, test data or prose: docs/results.md#summary (not part of a longer
	// path such as another project's .agent/docs/x.md).
	docCitation = regexp.MustCompile(`(?:^|[^\w/.-])docs/([\w./-]*\w\.md)(?:#([\w-]*\w))?`)
	// A markdown link to a section: [x](format.md#metrics), [x](#metrics).
	mdLink       = regexp.MustCompile(`\]\(([\w./-]*\.md)?#([^)\s]+)\)`)
	htmlAnchor   = regexp.MustCompile(`<a id="([^"]+)"`)
	headingStart = regexp.MustCompile("^#{1,6} ")
)

// TestDocCitations keeps the references the code makes to its documentation true: every
// page of docs/ it cites exists, every #anchor is a heading there, and no comment cites the
// format brief the project started from, which is not in this repository.
func TestDocCitations(t *testing.T) {
	anchors := map[string]map[string]bool{} // repo-relative .md path → its anchors
	anchorsOf := func(path string) (map[string]bool, error) {
		if a, ok := anchors[path]; ok {
			return a, nil
		}
		data, err := os.ReadFile(filepath.Join(repoRoot, path))
		if err != nil {
			return nil, err
		}
		anchors[path] = markdownAnchors(data)
		return anchors[path], nil
	}
	brief := "FORMAT" + ".md" // spelled apart so this file does not cite it
	cited := 0
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "SOURCES.md")); err == nil {
				return filepath.SkipDir // other projects' files, kept as they were published
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".yaml", ".yml", ".json", ".txt":
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		scanner := bufio.NewScanner(bytes.NewReader(data))
		scanner.Buffer(nil, 1<<20)
		for line := 1; scanner.Scan(); line++ {
			text := scanner.Text()
			if filepath.Ext(path) == ".go" {
				// Only comments cite; string literals hold test data (paths of other repositories).
				i := strings.Index(text, "//")
				if i < 0 {
					continue
				}
				text = text[i:]
			}
			where := fmt.Sprintf("%s:%d", rel, line)
			if strings.Contains(text, brief) {
				t.Errorf("%s cites %s, which is not in this repository: cite a section of docs/ instead", where, brief)
			}
			var refs [][2]string // target .md (repo-relative), anchor
			for _, m := range docCitation.FindAllStringSubmatch(text, -1) {
				refs = append(refs, [2]string{"docs/" + m[1], m[2]})
			}
			if filepath.Ext(path) == ".md" {
				for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
					target := rel
					if m[1] != "" {
						target = filepath.ToSlash(filepath.Join(filepath.Dir(rel), m[1]))
					}
					refs = append(refs, [2]string{target, m[2]})
				}
			}
			for _, ref := range refs {
				cited++
				a, err := anchorsOf(ref[0])
				if err != nil {
					t.Errorf("%s cites %s, which does not exist", where, ref[0])
					continue
				}
				if ref[1] != "" && !a[ref[1]] {
					t.Errorf("%s cites %s#%s, which is not a heading there", where, ref[0], ref[1])
				}
			}
		}
		return scanner.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if cited < 50 {
		t.Errorf("found %d citations of docs/; the scan is broken", cited)
	}
}

// markdownAnchors lists the anchors GitHub gives a document's headings (outside code fences),
// plus explicit <a id> anchors.
func markdownAnchors(data []byte) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := ""
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			switch {
			case fence == "":
				fence = trimmed[:3]
			case strings.HasPrefix(trimmed, fence):
				fence = ""
			}
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		if fence != "" || !headingStart.MatchString(line) {
			continue
		}
		slug := headingSlug(strings.TrimLeft(line, "#"))
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// headingSlug is GitHub's anchor for a heading: lower case, punctuation dropped (hyphens and
// underscores kept), spaces turned into hyphens.
func headingSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestHeadingSlug(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"## Defaults", "defaults"},
		{"## `code` — assertions", "code--assertions"},
		{"## CSV datasets (`tasks_from`)", "csv-datasets-tasks_from"},
		{"## LLM judges: `prompt`, `llm`, `llm_comparison`", "llm-judges-prompt-llm-llm_comparison"},
		{"## GitHub Copilot CLI (`copilot`, alias `copilot-sdk`)", "github-copilot-cli-copilot-alias-copilot-sdk"},
		{"### Binary, extra arguments and settings", "binary-extra-arguments-and-settings"},
	} {
		if got := headingSlug(strings.TrimLeft(tc.heading, "#")); got != tc.want {
			t.Errorf("headingSlug(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
	doc := "# T\n## A b\n```\n## Not a heading\n```\n## A b\n<a id=\"x\"></a>text\n"
	got := markdownAnchors([]byte(doc))
	for _, want := range []string{"t", "a-b", "a-b-1", "x"} {
		if !got[want] {
			t.Errorf("markdownAnchors misses %q: %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a heading inside a code fence counts")
	}
}

// The README's Action workflow is docs/workflows/skillgate.yml (which actionlint checks in
// action/), so the snippet a new user copies is complete and lints.
func TestReadmeWorkflowIsTheLintedExample(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile(filepath.Join(repoRoot, "docs/workflows/skillgate.yml"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "### On pull requests (GitHub Action)\n")
	if !ok {
		t.Fatal("README has no Action section")
	}
	_, block, _ := strings.Cut(section, "```yaml\n")
	block, _, _ = strings.Cut(block, "```\n")
	i := strings.Index(string(example), "name: skillgate\n")
	if i < 0 || block != string(example[i:]) {
		t.Errorf("the README's workflow differs from docs/workflows/skillgate.yml (after its comment):\n%s", block)
	}
	for _, want := range []string{"pull_request:", "push:", "permissions:", "actions/upload-artifact"} {
		if !strings.Contains(block, want) {
			t.Errorf("the README's workflow lacks %s", want)
		}
	}
}

// commandFlags runs every command with -h, as a user asking for its flags does, and returns
// each command's flag names. Asking for help is not a usage error: it exits 0.
func commandFlags(t *testing.T) map[string][]string {
	t.Helper()
	flagLine := regexp.MustCompile(`(?m)^  -([\w-]+)`)
	out := map[string][]string{}
	for _, c := range commands() {
		if c.name == "version" { // takes no flags and ignores its arguments
			continue
		}
		for _, help := range []string{"-h", "--help"} {
			code, _, stderr := run(t, nil, c.name, help)
			if code != exitOK || !strings.Contains(stderr, "Usage: skillgate "+c.name) {
				t.Errorf("skillgate %s %s: exit %d, want 0 and the usage\n%s", c.name, help, code, stderr)
			}
			if help != "-h" {
				continue
			}
			out[c.name] = []string{}
			for _, m := range flagLine.FindAllStringSubmatch(stderr, -1) {
				out[c.name] = append(out[c.name], m[1])
			}
		}
	}
	if len(out["run"]) < 30 {
		t.Fatalf("found %d flags of run in its -h; the scan is broken", len(out["run"]))
	}
	return out
}

// userDocs is the text of the README and every page of docs/, by repo-relative path.
func userDocs(t *testing.T) map[string]string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range append(pages, filepath.Join(repoRoot, "README.md")) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(repoRoot, p)
		out[filepath.ToSlash(rel)] = string(data)
	}
	return out
}

// spelling is how the docs write a flag: -o, --out.
func spelling(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// TestEveryFlagIsDocumented: a flag a command's -h lists is in the README or docs/, so a user
// reading them meets every flag there is.
func TestEveryFlagIsDocumented(t *testing.T) {
	var all strings.Builder
	for _, text := range userDocs(t) {
		all.WriteString(text)
	}
	docs := all.String()
	for cmd, names := range commandFlags(t) {
		for _, name := range names {
			if !regexp.MustCompile(regexp.QuoteMeta(spelling(name)) + `\b`).MatchString(docs) {
				t.Errorf("skillgate %s %s is in -h but in neither README.md nor docs/*.md", cmd, spelling(name))
			}
		}
	}
}

// documentedCommand is `skillgate CMD args` in a code span or a code block of the docs; args end
// at a comment, a shell operator or the end of the command.
var documentedCommand = regexp.MustCompile(`(?:^|[^\w/.-])skillgate ([a-z]+)((?:[ \t]+[^ \t#;&|)]+)*)`)

// TestDocumentedFlagsExist: every flag the docs write after `skillgate CMD` is a flag of CMD, so
// a command a user copies from the docs parses.
func TestDocumentedFlagsExist(t *testing.T) {
	flags := commandFlags(t)
	codeSpan := regexp.MustCompile("`([^`\n]+)`")
	checked := 0
	for path, text := range userDocs(t) {
		fence := false
		for i, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				fence = !fence
				continue
			}
			code := []string{line}
			if !fence {
				code = nil
				for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
					code = append(code, m[1])
				}
			}
			for _, c := range code {
				for _, m := range documentedCommand.FindAllStringSubmatch(c, -1) {
					names, ok := flags[m[1]]
					if !ok {
						continue // prose ("skillgate runs …"), or version
					}
					for _, arg := range strings.Fields(m[2]) {
						arg = strings.TrimLeft(arg, "[(")
						name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
						name = strings.TrimRight(name, "])…,.")
						if !strings.HasPrefix(arg, "-") || name == "" || arg == "--" {
							continue
						}
						checked++
						if !slices.Contains(names, name) {
							t.Errorf("%s:%d: `skillgate %s %s`: %s has no flag %s", path, i+1, m[1], strings.TrimSpace(m[2]), m[1], spelling(name))
						}
					}
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d documented flags; the scan is broken", checked)
	}
}

func TestFailOnFacts(t *testing.T) {
	for _, tc := range []struct {
		vars pipeline.Vars
		want string
	}{
		{pipeline.Vars{Figures: pipeline.Figures{Verdict: "regressed"}}, "verdict regressed"},
		{pipeline.Vars{SetupFailed: true, Figures: pipeline.Figures{Verdict: "no-baseline"}}, "setup_failed, verdict no-baseline"},
		{pipeline.Vars{Incomplete: true, NewMissedThresholds: 1, Figures: pipeline.Figures{NewFailures: 2, Verdict: "inconclusive"}},
			"new_failures 2, new_missed_thresholds 1, incomplete, verdict inconclusive"},
	} {
		if got := tc.vars.Facts(); got != tc.want {
			t.Errorf("Facts = %q, want %q", got, tc.want)
		}
	}
}

// TestDocYAMLParses: every ```yaml block of the README and docs/ is YAML, so what a user copies
// from them loads (a flow sequence holding ${eval.parent} is not).
func TestDocYAMLParses(t *testing.T) {
	blocks := 0
	for path, text := range userDocs(t) {
		lines := strings.Split(text, "\n")
		for i := 0; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) != "```yaml" {
				continue
			}
			start := i + 1
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			}
			blocks++
			indent := len(lines[start-1]) - len(strings.TrimLeft(lines[start-1], " "))
			var body strings.Builder
			for _, l := range lines[start:i] {
				body.WriteString(strings.TrimPrefix(l, strings.Repeat(" ", indent)) + "\n")
			}
			var v yaml.Node // syntax only: a block may list alternatives of one key
			if err := yaml.Unmarshal([]byte(body.String()), &v); err != nil {
				t.Errorf("%s:%d: the yaml block does not parse: %v", path, start, err)
			}
		}
	}
	if blocks < 20 {
		t.Errorf("found %d yaml blocks; the scan is broken", blocks)
	}
}

// An experiment that does not load says why (docs/vally.md#experiments), instead of "no suite
// found" in no path.
func TestBrokenExperimentSaysWhy(t *testing.T) {
	dir := t.TempDir()
	exp := filepath.Join(dir, "x.experiment.yaml")
	if err := os.WriteFile(exp, []byte("name: x\nevals: [nothing/*/eval.vally.yaml]\nvariants:\n  a: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"validate", "run"} {
		code, _, stderr := run(t, nil, cmd, "--quiet", "--out", t.TempDir(), "--experiment", exp)
		if cmd == "validate" {
			code, _, stderr = run(t, nil, cmd, "--experiment", exp)
		}
		if code != exitUsage || !strings.Contains(stderr, "x.experiment.yaml:2:") || strings.Contains(stderr, "no suite found") {
			t.Errorf("%s --experiment: exit %d, want 2 and the experiment's error\n%s", cmd, code, stderr)
		}
	}
}

// TestEveryExecutorIsDocumented: the README's --executor row names every executor and alias
// run accepts.
func TestEveryExecutorIsDocumented(t *testing.T) {
	readme := userDocs(t)["README.md"]
	_, row, ok := strings.Cut(readme, "\n| `--executor NAME` |")
	if !ok {
		t.Fatal("README has no --executor row")
	}
	row, _, _ = strings.Cut(row, "\n")
	for _, name := range pipeline.ExecutorNames() {
		if !strings.Contains(row, "`"+name+"`") {
			t.Errorf("README's --executor row does not name %q", name)
		}
	}
}
