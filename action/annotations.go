package action

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/skillgate/skillgate/report"
)

// Annotation levels (workflow commands); check runs call an error a "failure".
const (
	LevelError   = "error"
	LevelWarning = "warning"
	LevelNotice  = "notice"
)

// stepAnnotationLimit is GitHub's limit of workflow-command annotations per level and step;
// extras are dropped silently, so the action picks the most important ones itself.
const stepAnnotationLimit = 10

// Annotation is one finding at a file and line of the repository.
type Annotation struct {
	Level   string
	File    string // repository-relative, slash-separated; "" for findings without a place
	Line    int
	Col     int
	Title   string
	Message string
	// rank orders findings of one level: lower comes first (regressions before threshold
	// misses before failing graders before trigger prompts).
	rank int
}

// collectAnnotations renders the reports' findings (report.Input.Findings: each decided once,
// with its level, in the order a reviewer should read them) as annotations at their file and
// line; a finding without a place points at its suite's eval.yaml.
func collectAnnotations(in *report.Input, repoRoot string) []Annotation {
	var out []Annotation
	for i, f := range in.Findings() {
		a := Annotation{Level: f.Level, Title: "skillgate: " + f.Title, Message: clip(f.Message, 4000), rank: i}
		if loc := f.Place(); loc != nil && loc.File != "" {
			a.File = repoPath(repoRoot, loc.File)
			a.Line, a.Col = max(loc.Line, 1), loc.Col
		}
		out = append(out, a)
	}
	return out
}

// repoPath makes a results location repository-relative (results already are when the suite
// sat in a git checkout).
func repoPath(root, file string) string {
	if filepath.IsAbs(file) && root != "" {
		if rel, err := filepath.Rel(root, file); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(file)
}

// emitAnnotations prints the most important annotations as workflow commands, at most
// stepAnnotationLimit per level, and says how many more the check run and summary hold.
func emitAnnotations(w *commands, anns []Annotation) {
	count := map[string]int{}
	dropped := map[string]int{}
	for _, a := range anns {
		if count[a.Level] >= stepAnnotationLimit {
			dropped[a.Level]++
			continue
		}
		count[a.Level]++
		w.annotate(a)
	}
	var parts []string
	for _, level := range []string{LevelError, LevelWarning, LevelNotice} {
		if n := dropped[level]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d more %s(s)", n, level))
		}
	}
	if len(parts) > 0 {
		w.infof("skillgate: GitHub shows %d annotations per level and step; %s are in the job summary (and in the check run with check-run: true)", stepAnnotationLimit, strings.Join(parts, ", "))
	}
}

// checkRunAnnotations converts annotations with a place for the checks API (which requires a
// path and line).
func checkRunAnnotations(anns []Annotation) []*github.CheckRunAnnotation {
	var out []*github.CheckRunAnnotation
	for _, a := range anns {
		if a.File == "" || filepath.IsAbs(a.File) {
			continue
		}
		level := a.Level
		if level == LevelError {
			level = "failure"
		}
		out = append(out, &github.CheckRunAnnotation{
			Path: github.String(a.File), StartLine: github.Int(a.Line), EndLine: github.Int(a.Line),
			AnnotationLevel: github.String(level), Title: github.String(clip(a.Title, 255)), Message: github.String(clip(a.Message, 64000)),
		})
	}
	return out
}
