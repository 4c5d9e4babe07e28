package spec

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/testtree"
)

// FuzzVallyProject: a .vally.yaml of any content is read or refused with positioned
// diagnostics, and a Vally spec that names its environments loads beside it. Seeds are the real
// project files under testdata/vallyproject.
func FuzzVallyProject(f *testing.F) {
	err := filepath.WalkDir("testdata/vallyproject", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != ".vally.yaml" {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil {
			f.Add(data)
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte("environments:\n  dev: {skills: [../s], files: [{src: a.txt, dest: b}], commandTimeout: 5s}\nsuites: {x: {filter: {t: [a, {b: c}]}, evals: '**'}}\n"))
	f.Add([]byte("environments: {dev: dev, azsdk-mcp-mock: [1]}\npaths: {evals: [null, 3]}\nsuites: {'': null}\n"))
	spec := []byte("environment: azsdk-mcp-mock\nstimuli:\n  - name: a\n    prompt: p\n    environment: dev\n    tags: {t: a, area: typespec}\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		testtree.WriteSame(t, dir, data, ".vally.yaml", "a.txt")
		testtree.WriteSame(t, dir, spec, "evals/x.eval.yaml")
		p, diags := LoadVallyProject(filepath.Join(dir, ".vally.yaml"))
		for _, d := range diags {
			if d.Pos.File == "" || d.Message == "" {
				t.Fatalf("unpositioned diagnostic %q", d.Error())
			}
		}
		if p != nil {
			if p.Root != dir {
				t.Fatalf("root %s, want %s", p.Root, dir)
			}
			if names := p.environmentNames(); !slices.IsSorted(names) {
				t.Fatalf("environment names not sorted: %q", names)
			}
			for name, vs := range p.Suites {
				if vs.Name != name {
					t.Fatalf("suite %q named %q", name, vs.Name)
				}
				vs.Matches([]string{"t=a", "area=typespec"})
			}
		}
		s, diags := Load(filepath.Join(dir, "evals/x.eval.yaml"), Options{})
		if s == nil {
			t.Fatal("nil suite")
		}
		for _, d := range diags {
			if d.Pos.File == "" || d.Message == "" {
				t.Fatalf("unpositioned diagnostic %q", d.Error())
			}
		}
	})
}

// FuzzClassify: discovery reads the head of every file named like a suite; whatever its
// content, it is taken for a known kind, a file skipped is skipped with a note, and a folder
// search that meets it never fails.
func FuzzClassify(f *testing.F) {
	for _, seed := range seedFiles(f) {
		f.Add(seed)
	}
	for _, dir := range []string{"testdata/notours", "testdata/skillcreator"} {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".yml")) {
				if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
					f.Add(data)
				}
			}
			return nil
		})
	}
	f.Add([]byte("on: push\njobs: {}\n"))
	f.Add([]byte(`{"evals": [{"query": "q", "should_trigger": true}]}`))
	names := []string{"eval.yaml", "s.eval.yaml", "evals/evals.json", "evals/trigger_eval.json", "evals/hotfix-evals.json", "evals/waza-eval.yaml"}
	known := []Kind{KindWaza, KindVally, KindSkillCreator, KindTriggerSet, KindVallyExperiment, KindWorkflow, KindOther}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		testtree.WriteSame(t, dir, data, names...)
		for _, name := range names {
			c := Classify(filepath.Join(dir, name))
			if !slices.Contains(known, c.Kind) {
				t.Fatalf("%s: kind %q", name, c.Kind)
			}
			if !c.Kind.Ours() && c.Note == "" {
				t.Fatalf("%s: %s skipped without a note", name, c.Kind)
			}
		}
		found, err := Find([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range found.Suites {
			if !found.Kinds[s].Ours() {
				t.Fatalf("%s run as %q", s, found.Kinds[s])
			}
		}
	})
}
