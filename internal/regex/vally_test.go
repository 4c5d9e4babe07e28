package regex

import (
	"slices"
	"testing"
)

// TestVallyPatternsMatchNode: every pattern of the real Vally specs in testdata/vally (their
// repositories, commits and licences in testdata/SOURCES.md), compiled with Vally's flags, gives
// node's verdict on every text of those specs (prompts and rubric lines).
func TestVallyPatternsMatchNode(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: every Vally pattern against node")
	}
	var corpus struct {
		Texts []struct{ Text string } `json:"texts"`
	}
	var verdicts []struct {
		Pattern, Flags, Error string
		Hits                  []int
	}
	loadJSON(t, "vally/patterns.json", &corpus)
	loadJSON(t, "vally/verdicts.json", &verdicts)
	compared, backtracking := 0, 0
	for _, v := range verdicts {
		re, err := Compile(v.Pattern, JavaScript, jsFlags(v.Flags))
		if (err != nil) != (v.Error != "") {
			t.Errorf("/%s/%s: error %v; node: %q", v.Pattern, v.Flags, err, v.Error)
			continue
		}
		if err != nil {
			continue
		}
		if re.Backtracking() {
			backtracking++
		}
		var hits []int
		for i, c := range corpus.Texts {
			ok, err := re.MatchString(c.Text)
			if err != nil {
				t.Fatalf("/%s/%s: %v", v.Pattern, v.Flags, err)
			}
			if ok {
				hits = append(hits, i)
			}
			compared++
		}
		if !slices.Equal(hits, v.Hits) && !(len(hits) == 0 && len(v.Hits) == 0) {
			t.Errorf("/%s/%s matches texts %v; node %v", v.Pattern, v.Flags, hits, v.Hits)
		}
	}
	t.Logf("%d patterns (%d on the backtracking engine), %d verdicts equal node's", len(verdicts), backtracking, compared)
}
