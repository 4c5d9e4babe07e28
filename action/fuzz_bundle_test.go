package action

import (
	"archive/zip"
	"bytes"
	"testing"

	"github.com/skillgate/skillgate/results"
)

func minimalBundle(f *testing.F) []byte {
	res, err := results.Marshal(&results.SuiteResult{SchemaVersion: 1, EvalName: "greet", Tasks: []*results.TaskResult{}})
	if err != nil {
		f.Fatal(err)
	}
	pr := `{"version":1,"number":7,"head_sha":"4c2e8a6b0d9f1e3c5a7b9d1f3e5c7a9b1d3f5e71","head_repo":"octodev/demo","head_ref":"main","base_ref":"main","base_sha":"9a1f0c3b5d7e2f4a6c8b0d1e3f5a7c9b1d3e5f70","key":"evals","workflow":"evals.yml","needs_report":true,"reason":"fork","suites":[{"name":"greet","results":"results/greet.json","suite_file":"evals/greet/eval.yaml"}],"unaffected":[],"skillgate_version":"v1","deferred_grades":0}`
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range map[string][]byte{PRFile: []byte(pr), "results/greet.json": res, "bundle/tree/evals/greet/eval.yaml": []byte("name: greet\n")} {
		w, _ := zw.Create(name)
		w.Write(data)
	}
	zw.Close()
	return buf.Bytes()
}

// FuzzReadBundle: whatever the artifact holds, reading it never panics, and a bundle it accepts
// has a pull request record whose every suite has its results and suite file.
func FuzzReadBundle(f *testing.F) {
	good := minimalBundle(f)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte("PK\x03\x04"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := readBundle(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		for _, s := range b.PR.Suites {
			if b.Results[s.Results] == nil || b.Tree[s.SuiteFile] == nil {
				t.Fatalf("accepted bundle lacks %s or %s", s.Results, s.SuiteFile)
			}
		}
	})
}

// FuzzDecodePRRecord: pr.json is validated before it is decoded; anything accepted is in range.
func FuzzDecodePRRecord(f *testing.F) {
	f.Add([]byte(`{"version":1,"number":7,"head_sha":"4c2e8a6b0d9f1e3c5a7b9d1f3e5c7a9b1d3f5e71","head_repo":"octodev/demo","head_ref":"main","base_ref":"main","base_sha":"9a1f0c3b5d7e2f4a6c8b0d1e3f5a7c9b1d3e5f70","key":"evals","workflow":"evals.yml","needs_report":true,"reason":"","suites":[],"unaffected":[],"skillgate_version":"","deferred_grades":0}`))
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"version":1,"number":1e400}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := decodePRRecord(data)
		if err != nil {
			return
		}
		if rec.Number < 1 || len(rec.HeadSHA) < 40 || rec.Key == "" {
			t.Fatalf("accepted an out-of-range record: %+v", rec)
		}
	})
}
