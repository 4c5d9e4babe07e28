package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"sort"

	"go.yaml.in/yaml/v3"
)

// DefinitionHash identifies what a task asks of the agent: its prompt, context, input files
// (contents included), environment, trials and time limit. Two runs whose tasks have the same
// hash were given the same task, wherever its file lives.
func (t *Task) DefinitionHash() string {
	h := sha256.New()
	field(h, "prompt", t.Prompt)
	field(h, "context", t.Context)
	field(h, "timeout", fmt.Sprint(t.TimeoutSeconds))
	field(h, "trials", fmt.Sprint(t.Trials))
	for _, f := range t.Files {
		field(h, "file", f.Path)
		if f.HasContent {
			field(h, "content", f.Content)
		} else if data, err := os.ReadFile(f.Source); err == nil {
			field(h, "content", string(data))
		} else {
			field(h, "missing", f.Missing)
		}
	}
	keys := make([]string, 0, len(t.Environment))
	for k := range t.Environment {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		field(h, "env", k+"="+t.Environment[k])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// GradersHash identifies how a task is judged: each effective grader's name, type, weight and
// configuration, in order (files a grader's configuration names are not read).
func (t *Task) GradersHash() string {
	h := sha256.New()
	for _, g := range t.Graders {
		field(h, "grader", g.Name)
		field(h, "type", g.Type)
		field(h, "weight", fmt.Sprint(g.Weight))
		field(h, "implicit", g.Implicit)
		if g.config != nil {
			// The values as written, without comments or layout: rewording a comment is not a
			// new yardstick.
			var v any
			data, err := []byte(nil), g.config.Decode(&v)
			if err == nil {
				data, err = yaml.Marshal(v)
			}
			if err != nil {
				data = []byte(err.Error())
			}
			field(h, "config", string(data))
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// field writes a labelled, length-prefixed value, so no two different definitions share a byte stream.
func field(h hash.Hash, label, value string) {
	fmt.Fprintf(h, "%s:%d:", label, len(value))
	io.WriteString(h, value)
}
