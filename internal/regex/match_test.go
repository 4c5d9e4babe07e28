package regex

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// testdata/cases.json lists patterns of each dialect and texts; match_python.json and
// match_javascript.json are what CPython 3.11's re and node 20's RegExp made of them (see the
// generators beside them). Every verdict, match, group and span must be the same here.

type casesFile struct {
	Texts []string `json:"texts"`
}

func loadJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

type pyRecord struct {
	Pattern string `json:"pattern"`
	Flags   int    `json:"flags"`
	Error   string `json:"error"`
	Results []struct {
		First *struct {
			Span   []int     `json:"span"`
			Groups []*string `json:"groups"`
		} `json:"first"`
		All       [][]int `json:"all"`
		Match     bool    `json:"match"`
		FullMatch bool    `json:"fullmatch"`
	} `json:"results"`
}

// pyFlags maps re's flag values.
func pyFlags(v int) Flags {
	var f Flags
	for bit, fl := range map[int]Flags{2: IgnoreCase, 8: Multiline, 16: DotAll, 256: ASCII, 64: Verbose} {
		if v&bit != 0 {
			f |= fl
		}
	}
	return f
}

// runeSpan converts byte offsets to character offsets.
func runeSpan(s string, a, b int) []int {
	return []int{utf8.RuneCountInString(s[:a]), utf8.RuneCountInString(s[:b])}
}

func TestPythonMatchesCPython(t *testing.T) {
	var cases casesFile
	var recs []pyRecord
	loadJSON(t, "cases.json", &cases)
	loadJSON(t, "match_python.json", &recs)
	for _, rec := range recs {
		name := fmt.Sprintf("%q/%d", rec.Pattern, rec.Flags)
		re, err := Compile(rec.Pattern, Python, pyFlags(rec.Flags))
		if rec.Error != "" {
			if err == nil {
				t.Errorf("%s: compiles; CPython: %s", name, rec.Error)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v; CPython compiles it", name, err)
			continue
		}
		anchored := MustCompile(rec.Pattern, Python, pyFlags(rec.Flags)|MatchStart)
		full := MustCompile(rec.Pattern, Python, pyFlags(rec.Flags)|MatchFull)
		for i, text := range cases.Texts {
			want := rec.Results[i]
			at := fmt.Sprintf("%s on %q", name, text)
			idx, err := re.FindStringSubmatchIndex(text)
			if err != nil {
				t.Errorf("%s: %v", at, err)
				continue
			}
			switch {
			case idx == nil && want.First != nil:
				t.Errorf("%s: no match; CPython matches %v", at, want.First.Span)
			case idx != nil && want.First == nil:
				t.Errorf("%s: matches %v; CPython does not", at, runeSpan(text, idx[0], idx[1]))
			case idx != nil:
				if got := runeSpan(text, idx[0], idx[1]); !slices.Equal(got, want.First.Span) {
					t.Errorf("%s: span %v, CPython %v", at, got, want.First.Span)
				}
				for g, w := range want.First.Groups {
					var got *string
					if idx[2*g+2] >= 0 {
						s := text[idx[2*g+2]:idx[2*g+3]]
						got = &s
					}
					if (got == nil) != (w == nil) || got != nil && *got != *w {
						t.Errorf("%s: group %d is %v, CPython %v", at, g+1, deref(got), deref(w))
					}
				}
			}
			all, err := re.FindAllStringSubmatchIndex(text, -1)
			if err != nil {
				t.Errorf("%s: %v", at, err)
			}
			var spans [][]int
			for _, m := range all {
				spans = append(spans, runeSpan(text, m[0], m[1]))
			}
			if !slices.EqualFunc(spans, want.All, slices.Equal) {
				t.Errorf("%s: all matches %v, CPython %v", at, spans, want.All)
			}
			if ok, _ := anchored.MatchString(text); ok != want.Match {
				t.Errorf("%s: re.match %v, CPython %v", at, ok, want.Match)
			}
			if ok, _ := full.MatchString(text); ok != want.FullMatch {
				t.Errorf("%s: re.fullmatch %v, CPython %v", at, ok, want.FullMatch)
			}
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "None"
	}
	return fmt.Sprintf("%q", *s)
}

type jsRecord struct {
	Pattern string `json:"pattern"`
	Flags   string `json:"flags"`
	Error   string `json:"error"`
	Results []struct {
		First *struct {
			Text   string    `json:"text"`
			Groups []*string `json:"groups"`
		} `json:"first"`
		All []string `json:"all"`
	} `json:"results"`
}

func jsFlags(s string) Flags {
	var f Flags
	for _, c := range s {
		f |= map[rune]Flags{'i': IgnoreCase, 'm': Multiline, 's': DotAll}[c]
	}
	return f
}

func TestJavaScriptMatchesNode(t *testing.T) {
	var cases casesFile
	var recs []jsRecord
	loadJSON(t, "cases.json", &cases)
	loadJSON(t, "match_javascript.json", &recs)
	for _, rec := range recs {
		name := fmt.Sprintf("/%s/%s", rec.Pattern, rec.Flags)
		re, err := Compile(rec.Pattern, JavaScript, jsFlags(rec.Flags))
		if rec.Error != "" {
			if err == nil {
				t.Errorf("%s: compiles; node: %s", name, rec.Error)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v; node compiles it", name, err)
			continue
		}
		for i, text := range cases.Texts {
			want := rec.Results[i]
			at := fmt.Sprintf("%s on %q", name, text)
			idx, err := re.FindStringSubmatchIndex(text)
			if err != nil {
				t.Errorf("%s: %v", at, err)
				continue
			}
			ok, _ := re.MatchString(text)
			if ok != (idx != nil) {
				t.Errorf("%s: MatchString %v but FindStringSubmatchIndex %v", at, ok, idx)
			}
			switch {
			case idx == nil && want.First != nil:
				t.Errorf("%s: no match; node matches %q", at, want.First.Text)
			case idx != nil && want.First == nil:
				t.Errorf("%s: matches %q; node does not", at, text[idx[0]:idx[1]])
			case idx != nil:
				if got := text[idx[0]:idx[1]]; got != want.First.Text {
					t.Errorf("%s: match %q, node %q", at, got, want.First.Text)
				}
				for g, w := range want.First.Groups {
					var got *string
					if idx[2*g+2] >= 0 {
						s := text[idx[2*g+2]:idx[2*g+3]]
						got = &s
					}
					if (got == nil) != (w == nil) || got != nil && *got != *w {
						t.Errorf("%s: group %d is %v, node %v", at, g+1, deref(got), deref(w))
					}
				}
			}
			if want.All == nil {
				continue
			}
			all, err := re.FindAllStringSubmatchIndex(text, -1)
			if err != nil {
				t.Errorf("%s: %v", at, err)
			}
			var texts []string
			for _, m := range all {
				texts = append(texts, text[m[0]:m[1]])
			}
			if strings.Join(texts, "\x00") != strings.Join(want.All, "\x00") || len(texts) != len(want.All) {
				t.Errorf("%s: all matches %q, node %q", at, texts, want.All)
			}
		}
	}
}
