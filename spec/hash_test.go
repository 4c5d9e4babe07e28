package spec

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestTaskHashes(t *testing.T) {
	node := func(src string) *yaml.Node {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Content[0]
	}
	task := func(prompt, pattern string) *Task {
		return &Task{Prompt: prompt, Graders: []*Grader{{Name: "check", Type: "regex", Weight: 1, config: node("must_match: [" + pattern + "] # " + prompt)}}}
	}
	a, b := task("explain fib.py", "fib"), task("explain fib.py", "fib")
	if a.DefinitionHash() != b.DefinitionHash() || a.GradersHash() != b.GradersHash() {
		t.Fatal("equal tasks hash differently")
	}
	if c := task("explain fib.py", "fibonacci"); c.GradersHash() == a.GradersHash() || c.DefinitionHash() != a.DefinitionHash() {
		t.Error("a changed grader must change the graders hash only")
	}
	if c := task("explain fib.go", "fib"); c.DefinitionHash() == a.DefinitionHash() || c.GradersHash() != a.GradersHash() {
		t.Error("a changed prompt must change the definition hash only")
	}
	// The grader's comment names the prompt: a comment is not part of the yardstick.
	if c := task("explain fib.go", "fib"); c.GradersHash() != a.GradersHash() {
		t.Error("a grader's comment changed its hash")
	}
}
