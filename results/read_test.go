package results

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// The streaming reader must read every file exactly as Decode does, whatever the read sizes.
func TestStreamReadsAsDecode(t *testing.T) {
	var files []string
	for _, pattern := range []string{"testdata/*.json", "testdata/*/*.json", "../report/testdata/*/*.json", "../cmd/skillgate/testdata/*/*.json", "../action/testdata/*.json"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	inline := map[string]string{
		"escapes":     `{"schema_version":1,"eval_name":"a\"b\\","tasks":[{"id":"t\\\"1","name":"x\u00e9","runs":[{"run_number":1,"final_output":"}]\\\\","validations":{"g":{"identifier":"g","score":1,"details":{"k":[1,2,{"x":null}]}}}}]},null],"metrics":{}}`,
		"scalar last": `{"eval_name":"w","tasks":[],"x":1}`,
		"tasks null":  `{"schema_version":1,"eval_name":"n","tasks":null}`,
		"spaces":      " \n{ \"schema_version\" : 1 , \"eval_name\" : \"s\" , \"tasks\" : [ { \"id\" : \"a\" } , { \"id\" : \"b\" } ] } \n",
		"truncated":   `{"schema_version":1,"eval_name":"t","tasks":[{"id":"a"`,
		"trailing":    `{"schema_version":1,"eval_name":"t","tasks":[]} x`,
		"bad task":    `{"schema_version":1,"eval_name":"t","tasks":[{"id":5}]}`,
		"newer":       `{"schema_version":99,"eval_name":"t","tasks":[]}`,
		"not object":  `[1]`,
		"empty":       ``,
		"shared":      string(mustMarshal(t, sharedSuite())),
	}
	dir := t.TempDir()
	for name, content := range inline {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".json")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	if len(files) < len(inline)+3 {
		t.Fatalf("only %d files found", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, wantErr := Decode(data, f)
		got, gotErr := ReadFile(f)
		if _, _, streamed := decodeStream(bytes.NewReader(data)); wantErr == nil && !streamed {
			t.Errorf("%s: read by the fallback, not the stream", f)
		}
		if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
			t.Errorf("%s: error %v, want %v", f, gotErr, wantErr)
			continue
		}
		if wantErr != nil {
			continue
		}
		if g, w := mustMarshal(t, got), mustMarshal(t, want); !bytes.Equal(g, w) {
			t.Errorf("%s: stream read differs from Decode", f)
		}
		// One byte per read: every value crosses buffer boundaries.
		s, v, ok := decodeStream(iotest.OneByteReader(bytes.NewReader(data)))
		if !ok {
			t.Errorf("%s: one byte at a time: not read", f)
			continue
		}
		one, err := finishDecode(s, v, f)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := mustMarshal(t, one), mustMarshal(t, want); !bytes.Equal(g, w) {
			t.Errorf("%s: one byte at a time: differs from Decode", f)
		}
	}
}

func mustMarshal(t *testing.T, s *SuiteResult) []byte {
	t.Helper()
	data, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func sharedSuite() *SuiteResult {
	s := bigSuite(3, 3)
	for _, tr := range s.Tasks {
		for _, r := range tr.Runs {
			r.Validations[0].Details = map[string]any{"contains": []any{"a"}, "failures": nil}
		}
	}
	return s
}
