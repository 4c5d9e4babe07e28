package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/linediff"
)

// golden is an expected normalized run, written by hand from reading the transcript.
type golden struct {
	Source string          `json:"source"`
	Format string          `json:"format"`
	Error  string          `json:"error"`
	Run    json.RawMessage `json:"run"`
}

// TestGoldenTranscripts parses every recorded transcript under testdata/transcripts and compares
// the normalized run with its golden file, both with the format named and detected.
func TestGoldenTranscripts(t *testing.T) {
	transcripts, err := filepath.Glob("testdata/transcripts/*/*")
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	goldens, _ := filepath.Glob("testdata/golden/*.json")
	if len(goldens) == 0 {
		t.Fatal("no golden files")
	}
	for _, path := range goldens {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var g golden
		if err := json.Unmarshal(data, &g); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		covered[filepath.Join("testdata/transcripts", g.Source)] = true
		for _, format := range []string{g.Format, ""} {
			t.Run(filepath.Base(path)+"/format="+format, func(t *testing.T) {
				f, err := os.Open(filepath.Join("testdata/transcripts", g.Source))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				run, err := ParseTranscript(format, f)
				switch {
				case g.Error == "" && err != nil:
					t.Errorf("unexpected error: %v", err)
				case g.Error != "" && err == nil:
					t.Errorf("no error, want %q", g.Error)
				case g.Error != "" && err.Error() != g.Error:
					t.Errorf("error = %q\nwant    %q", err, g.Error)
				}
				if run == nil {
					t.Fatal("nil run")
				}
				got, _ := json.Marshal(run)
				assertSameJSON(t, got, g.Run)
			})
		}
	}
	for _, tr := range transcripts {
		if strings.HasSuffix(tr, ".md") {
			continue
		}
		if !covered[tr] {
			t.Errorf("%s has no golden file", tr)
		}
	}
}

func assertSameJSON(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		gi, _ := json.MarshalIndent(g, "", "  ")
		wi, _ := json.MarshalIndent(w, "", "  ")
		t.Errorf("normalized run differs from golden:\n%s", linediff.Lines(string(wi), string(gi), 13))
	}
}
