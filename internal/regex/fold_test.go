package regex

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
)

// The reference data was computed by CPython 3.11 and node 20 (testdata/fold_python.py and
// fold_javascript.js, which say how) and frozen: the tests never run either. Characters are
// compared where every Unicode version involved (Python's 14.0, Go's 15.0, node's) assigns
// them: the data's "assigned" ranges are Python's.

type foldData struct {
	Assigned [][2]rune         `json:"assigned"`
	Fold     map[string][]rune `json:"fold"`
	W, D, S  [][2]rune
	Dot      [][2]rune `json:"dot"`
	Wi       [][2]rune `json:"wi"`
	NotWi    [][2]rune `json:"Wi"`
}

func loadFold(t *testing.T, name string) *foldData {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var d foldData
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

func rangesSet(rs [][2]rune) runeSet {
	var pairs []rune
	for _, r := range rs {
		pairs = append(pairs, r[0], r[1])
	}
	return setOf(pairs...)
}

var assigned14 = func() func(t *testing.T) runeSet {
	var s runeSet
	return func(t *testing.T) runeSet {
		if s == nil {
			s = rangesSet(loadFold(t, "fold_python.json").Assigned)
		}
		return s
	}
}()

// compareFold checks foldLiteral against a reference for every assigned character of domain.
func compareFold(t *testing.T, d Dialect, ref *foldData, domain runeSet) {
	t.Helper()
	want := map[rune]runeSet{}
	for k, v := range ref.Fold {
		c, _ := strconv.Atoi(k)
		var pairs []rune
		for _, r := range v {
			pairs = append(pairs, r, r)
		}
		want[rune(c)] = setOf(pairs...).intersect(domain)
	}
	bad := 0
	for i := 0; i < len(domain); i += 2 {
		for c := domain[i]; c <= domain[i+1]; c++ {
			w, ok := want[c]
			if !ok {
				w = runeSet{c, c}
			}
			got := foldLiteral(d, false, c).intersect(domain)
			if !got.equal(w) {
				if bad++; bad <= 20 {
					t.Errorf("%s: (?i)%U matches %s, want %s", d, c, fmtSet(got), fmtSet(w))
				}
			}
		}
	}
	if bad > 20 {
		t.Errorf("… %d characters differ", bad)
	}
}

func fmtSet(s runeSet) string {
	out := ""
	for i := 0; i < len(s); i += 2 {
		if s[i] == s[i+1] {
			out += fmt.Sprintf("%U ", s[i])
		} else {
			out += fmt.Sprintf("%U-%U ", s[i], s[i+1])
		}
	}
	return "[" + out + "]"
}

func TestCaseFoldingMatchesCPython(t *testing.T) {
	compareFold(t, Python, loadFold(t, "fold_python.json"), assigned14(t))
}

func TestCaseFoldingMatchesJavaScript(t *testing.T) {
	compareFold(t, JavaScript, loadFold(t, "fold_javascript.json"), assigned14(t).intersect(runeSet{0, 0xffff}))
}

func TestClassEscapesMatchTheDialects(t *testing.T) {
	py, js := loadFold(t, "fold_python.json"), loadFold(t, "fold_javascript.json")
	all, bmp := assigned14(t), assigned14(t).intersect(runeSet{0, 0xffff})
	for _, c := range []struct {
		name   string
		got    runeSet
		want   [][2]rune
		domain runeSet
	}{
		{`Python \w`, pyWord(), py.W, all},
		{`Python \d`, pyDigit(), py.D, all},
		{`Python \s`, pySpace, py.S, all},
		{`JavaScript \w`, asciiWord, js.W, bmp},
		{`JavaScript \d`, asciiDigit, js.D, bmp},
		{`JavaScript \s`, jsSpace, js.S, bmp},
		{`JavaScript .`, dotSet(JavaScript, false), js.Dot, bmp},
		{`JavaScript \w with i`, foldClass(JavaScript, false, nil, asciiWord, false), js.Wi, bmp},
		{`JavaScript \W with i`, foldClass(JavaScript, false, nil, asciiWord.negate(), false), js.NotWi, bmp},
	} {
		got, want := c.got.intersect(c.domain), rangesSet(c.want).intersect(c.domain)
		if !got.equal(want) {
			t.Errorf("%s: got %s\nwant %s", c.name, fmtSet(got.minus(want)), fmtSet(want.minus(got)))
		}
	}
}
