package results

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzReadVally: no input makes the Vally importer panic, and what it imports encodes.
func FuzzReadVally(f *testing.F) {
	for _, s := range []string{
		`{"type":"trial-result","evalName":"e","stimulus":"s","status":"success","gradeResult":{"passed":true,"score":1,"details":[{"name":"g","passed":true,"score":1}]}}`,
		`{"type":"trial-result","evalName":"e","stimulus":{"name":"s"},"status":"error","error":{"message":"boom"}}`,
		`{"type":"run-summary","passed":true}`, "", "{", `{"type":"trial-result","trialIndex":-5}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		suites, err := ReadVally(strings.NewReader(data), "f.jsonl")
		if err != nil {
			return
		}
		for _, s := range suites {
			if _, err := json.Marshal(s); err != nil {
				t.Fatalf("imported result does not encode: %v", err)
			}
		}
	})
}
