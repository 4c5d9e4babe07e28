// Package schemas embeds skillgate's JSON Schemas (draft 2020-12) for eval.yaml, task files,
// trigger_tests.yaml, results files and the pr.json of a collected run. The files are generated from internal/build; edit that, then run
// `go generate ./schemas`.
package schemas

//go:generate go run ./internal/gen .

import (
	"embed"
	"encoding/json"
	"sync"
)

// FS holds the schema files.
//
//go:embed *.schema.json
var FS embed.FS

// File names of the schemas.
const (
	EvalFile         = "eval.schema.json"
	TaskFile         = "task.schema.json"
	TriggerTestsFile = "trigger_tests.schema.json"
	// ResultsFile validates results files read from untrusted places (a fork's bundle).
	ResultsFile = "results.schema.json"
	// PRFile validates pr.json, the pull request record of a collected run.
	PRFile = "pr.schema.json"
)

// BaseURL is the published location of the files; each schema's $id is BaseURL + its file name.
const BaseURL = "https://raw.githubusercontent.com/skillgate/skillgate/main/schemas/"

// StrictKey marks schema objects whose unknown keys are errors rather than warnings.
const StrictKey = "x-skillgate-unknown-keys"

// Bytes returns a schema file's content (nil for an unknown name).
func Bytes(name string) []byte {
	data, err := FS.ReadFile(name)
	if err != nil {
		return nil
	}
	return data
}

var (
	typesOnce sync.Once
	types     []string
)

// GraderTypes returns the grader types the schemas accept, from the eval schema's enum.
func GraderTypes() []string {
	typesOnce.Do(func() {
		var doc struct {
			Defs struct {
				GraderItem struct {
					Properties struct {
						Type struct {
							Enum []string `json:"enum"`
						} `json:"type"`
					} `json:"properties"`
				} `json:"graderItem"`
			} `json:"$defs"`
		}
		if err := json.Unmarshal(Bytes(EvalFile), &doc); err == nil {
			types = doc.Defs.GraderItem.Properties.Type.Enum
		}
	})
	return append([]string(nil), types...)
}
