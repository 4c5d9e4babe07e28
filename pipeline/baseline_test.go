package pipeline

import (
	"path/filepath"
	"testing"

	"github.com/skillgate/skillgate/results"
)

func TestFindBaseline(t *testing.T) {
	dir := t.TempDir()
	greet := &results.SuiteResult{EvalName: "greet", Tasks: []*results.TaskResult{}}
	other := &results.SuiteResult{EvalName: "other", Tasks: []*results.TaskResult{}}
	if err := results.WriteFile(results.PathIn(dir, "greet"), greet); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "base.json")
	if err := results.WriteFile(file, other); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, location string
		head           *results.SuiteResult
		suites         int
		want           string // EvalName of the baseline, "" for none
		err            bool
	}{
		{"folder with the suite", dir, greet, 2, "greet", false},
		{"folder without the suite", dir, other, 2, "", false},
		{"file of the suite", file, other, 2, "other", false},
		{"file of another suite among several", file, greet, 2, "", false},
		{"file for the only suite", file, greet, 1, "other", false},
		{"no location", "", greet, 1, "", false},
		{"missing location", filepath.Join(dir, "absent"), greet, 1, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, path, err := FindBaseline(tt.location, tt.head, tt.suites)
			if (err != nil) != tt.err {
				t.Fatalf("err %v", err)
			}
			got := ""
			if base != nil {
				got = base.EvalName
				if path == "" {
					t.Errorf("no path for a found baseline")
				}
			}
			if got != tt.want {
				t.Errorf("baseline %q, want %q", got, tt.want)
			}
		})
	}
}
