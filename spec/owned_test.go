package spec

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// scanTaskID either reads what the YAML parser reads or declines; never something else.
func TestScanTaskID(t *testing.T) {
	tests := []struct {
		name, text string
		id         string // "" with ok false: declined
		enabled    bool
	}{
		{"id", "id: alpha\ninputs:\n  prompt: hi\n", "alpha", true},
		{"no id: the file name", "name: A\ninputs:\n  prompt: hi\n", "file-id", true},
		{"comment and quotes", "# a task\nid: \"a.b/c-d\" # note\n", "a.b/c-d", true},
		{"single quotes", "id: 'x_1'\r\nenabled: true\r\n", "x_1", true},
		{"numbers are strings", "id: 007\n", "007", true},
		{"disabled", "id: off-task\nenabled: false\n", "off-task", false},
		{"nested id is not the task's", "id: top\ngraders:\n  - id: inner\n    type: text\n", "top", true},
		{"bom", "\ufeffid: bom\n", "bom", true},
		{"null id", "id: null\n", "", false},
		{"tilde id", "id: ~\n", "", false},
		{"empty id", "id:\n  nested\n", "", false},
		{"spaces in id", "id: a b\n", "", false},
		{"escape in id", "id: \"a\\tb\"\n", "", false},
		{"enabled spelled otherwise", "id: a\nenabled: False\n", "", false},
		{"two ids", "id: a\nid: b\n", "", false},
		{"flow mapping", "{id: a}\n", "", false},
		{"sequence", "- id: a\n", "", false},
		{"document marker", "---\nid: a\n", "", false},
		{"merge key", "<<: *base\nid: a\n", "", false},
		{"quoted key", "\"id\": a\n", "", false},
		{"tab", "\tid: a\n", "", false},
		{"continuation at column 0", "prompt: \"a\nb\"\nid: c\n", "", false},
		{"anchor", "id: &x a\n", "", false},
		{"empty file", "# nothing\n", "", false},
		{"id continued on the next line", "id: 0\n 0\n", "", false},
		{"enabled continued on the next line", "id: a\nenabled: false\n  x\n", "", false},
		{"another key's value is indented", "id: a\ninputs:\n  prompt: hi\n", "a", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, enabled, ok := scanTaskID([]byte(tt.text), "file-id")
			if ok != (tt.id != "") || ok && (id != tt.id || enabled != tt.enabled) {
				t.Fatalf("scanTaskID = %q, %t, %t; want %q, %t", id, enabled, ok, tt.id, tt.enabled)
			}
			if !ok {
				return
			}
			if !isMapping(parseTaskText(tt.text)) {
				t.Fatalf("the scan read a file that is not a mapping")
			}
			checkScanAgrees(t, []byte(tt.text))
		})
	}
}

func parseTaskText(text string) *yaml.Node {
	doc, _ := parseYAML("f", []byte(text))
	return doc.Root
}

// checkScanAgrees fails when scanTaskID reads an id or enabled flag that the YAML parser does
// not read from the same text. Text that does not parse as a mapping makes no claim: its
// decoding fails later, and a shard then loads it in full.
func checkScanAgrees(t *testing.T, data []byte) {
	t.Helper()
	id, enabled, ok := scanTaskID(data, "file-id")
	root := parseTaskText(string(data))
	if !ok || !isMapping(root) {
		return
	}
	if !enabled {
		id = ""
	}
	parsed, _ := taskID(root, "file-id")
	if e, ok := boolOf(get(root, "enabled")); ok && !e {
		parsed = ""
	}
	if parsed != id {
		t.Errorf("the parser reads %q, the scan %q in %q", parsed, id, data)
	}
}

// FuzzScanTaskID: whatever the text, the scan never reads another id than the parser.
func FuzzScanTaskID(f *testing.F) {
	for _, seed := range []string{"id: alpha\ninputs:\n  prompt: hi\n", "# a task\nid: \"a.b/c-d\" # note\n",
		"id: 'x_1'\r\nenabled: true\r\n", "id: 007\n", "id: off-task\nenabled: false\n", "\ufeffid: bom\n",
		"id: top\ngraders:\n  - id: inner\n", "prompt: \"a\nb\"\nid: c\n", "id: a\nid: b\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkScanAgrees(t, data)
	})
}

// ownedSuite writes a suite whose task files exercise the id rules: a duplicate id, a disabled
// task, an id only the parser reads, an inline task, an input file and a templated prompt.
func ownedSuite(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"eval.yaml": `name: owned
graders:
  - type: text
    name: g
    config: {contains: ["hello"]}
tasks:
  - tasks/*.yaml
  - id: inline
    inputs: {prompt: "say hello"}
`,
		"fixtures/in.txt": "input\n",
		"tasks/a.yaml":    "id: a\ninputs:\n  prompt: \"hello {{.TaskID}}\"\n  files:\n    - path: in.txt\n",
		"tasks/b.yaml":    "id: a\ninputs:\n  prompt: second a\n",
		"tasks/c.yaml":    "inputs:\n  prompt: c by name\ngraders:\n  - type: text\n    name: own\n    config: {contains: [c]}\n",
		"tasks/d.yaml":    "id: d\nenabled: false\ninputs:\n  prompt: off\n",
		"tasks/e.yaml":    "{id: e, inputs: {prompt: flow}}\n",
		"tasks/f.yaml":    "id: f\nbogus_key: 1\ninputs:\n  prompt: f\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A task another job runs is decoded as a full load decodes it, without its problems; the
// tasks the job owns load and report as always.
func TestLoadOwnsOnlyValidatesItsTasks(t *testing.T) {
	dir := ownedSuite(t)
	full, fullDiags := Load(filepath.Join(dir, "eval.yaml"), Options{})
	if !strings.Contains(text(fullDiags), "bogus_key") {
		t.Fatalf("the full load does not report f's unknown key:\n%v", fullDiags)
	}
	for _, mine := range [][]string{nil, {"a", "f"}, {"a-2", "c", "e", "inline"}, {"a", "a-2", "c", "e", "f", "inline"}} {
		t.Run(strings.Join(mine, ","), func(t *testing.T) {
			var asked []string
			s, diags := Load(filepath.Join(dir, "eval.yaml"), Options{Owns: func(suite string, ids []string) func(string) bool {
				if suite != "owned" {
					t.Errorf("suite %q", suite)
				}
				asked = ids
				return func(id string) bool { return contains(mine, id) }
			}})
			if want := idsOf(full.Tasks); !reflect.DeepEqual(asked, want) {
				t.Errorf("Owns asked about %v, the tasks are %v", asked, want)
			}
			if !reflect.DeepEqual(s.Files, full.Files) {
				t.Errorf("files %v, full load %v", s.Files, full.Files)
			}
			if len(s.Tasks) != len(full.Tasks) {
				t.Fatalf("%d tasks, full load %d", len(s.Tasks), len(full.Tasks))
			}
			for i, task := range s.Tasks {
				f := full.Tasks[i]
				if task.ID != f.ID || task.Name != f.Name || task.Pos != f.Pos || !reflect.DeepEqual(task.Tags, f.Tags) ||
					task.DefinitionHash() != f.DefinitionHash() || task.GradersHash() != f.GradersHash() {
					t.Errorf("task %d: %s differs from the full load's %s", i, task.ID, f.ID)
				}
				// The flow-style e is read by the parser, the inline task with eval.yaml: both
				// are owned or not as Owns says, like the others.
				if want := !contains(mine, task.ID) && task.ID != "inline"; task.Unvalidated != want {
					t.Errorf("task %s: unvalidated %t", task.ID, task.Unvalidated)
				}
			}
			if got := strings.Contains(text(diags), "bogus_key"); got != contains(mine, "f") {
				t.Errorf("f's problem reported %t, f owned %t:\n%v", got, contains(mine, "f"), diags)
			}
			if got := strings.Contains(text(diags), "duplicate task id"); got != contains(mine, "a-2") {
				t.Errorf("the duplicate id reported %t, its task owned %t", got, contains(mine, "a-2"))
			}
		})
	}
}

// A file whose id the text scan misreads voids the split: every task loads in full.
func TestLoadOwnsFallsBackWhenTheScanIsWrong(t *testing.T) {
	dir := ownedSuite(t)
	// The quoted prompt runs on at column 0 with lines that look like keys: the scan reads
	// id "fake", the parser the file name.
	trick := "inputs:\n  prompt: \"one\nid: fake\nz: \"\n"
	if err := os.WriteFile(filepath.Join(dir, "tasks", "g.yaml"), []byte(trick), 0o644); err != nil {
		t.Fatal(err)
	}
	if id, _, ok := scanTaskID([]byte(trick), "g"); !ok || id != "fake" {
		t.Skipf("the scan no longer misreads this file (%q, %t)", id, ok)
	}
	s, diags := Load(filepath.Join(dir, "eval.yaml"), Options{Owns: func(string, []string) func(string) bool {
		return func(string) bool { return false }
	}})
	if !strings.Contains(text(diags), "bogus_key") {
		t.Errorf("not loaded in full: %v", diags)
	}
	for _, task := range s.Tasks {
		if task.Unvalidated {
			t.Errorf("task %s unvalidated after the fallback", task.ID)
		}
		if task.ID == "fake" {
			t.Errorf("the misread id was used")
		}
	}
}

func idsOf(tasks []*Task) []string {
	var ids []string
	for _, t := range tasks {
		ids = append(ids, t.ID)
	}
	return ids
}

func text(diags Diagnostics) string {
	var lines []string
	for _, d := range diags {
		lines = append(lines, d.Error())
	}
	return strings.Join(lines, "\n")
}

// A task file whose decoding fails (here an input path that leaves the workspace) is loaded in
// full by every job, so its error is reported everywhere and nothing reads what it names.
func TestLoadOwnsReportsDecodingErrorsEverywhere(t *testing.T) {
	dir := ownedSuite(t)
	escape := "id: escape\ninputs:\n  prompt: hi\n  files:\n    - path: ../../outside.txt\n"
	if err := os.WriteFile(filepath.Join(dir, "tasks", "h.yaml"), []byte(escape), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := Load(filepath.Join(dir, "eval.yaml"), Options{Owns: func(string, []string) func(string) bool {
		return func(string) bool { return false }
	}})
	if !strings.Contains(text(diags), "escapes the workspace") {
		t.Errorf("the escaping input is not reported:\n%s", text(diags))
	}
	for _, task := range s.Tasks {
		if task.ID == "escape" && task.Unvalidated {
			t.Errorf("the task with a decoding error is unvalidated")
		}
		if task.ID == "a" && !task.Unvalidated {
			t.Errorf("the others are loaded in full too")
		}
	}
}
