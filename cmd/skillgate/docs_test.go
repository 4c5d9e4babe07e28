package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
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
