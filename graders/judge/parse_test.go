package judge

import (
	"fmt"
	"strings"
	"testing"
)

func TestJSONObjects(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // fmt of each object's "score"
	}{
		{"bare", `{"score": 4, "reasoning": "ok"}`, []string{"4"}},
		{"fenced", "Here is my verdict:\n```json\n{\"score\": 2, \"passed\": false}\n```\nThanks.", []string{"2"}},
		{"fence without info string", "```\n{\"score\": 5}\n```", []string{"5"}},
		{"prose wrapped", `After review, {"score": 3, "reasoning": "a {brace} in a string"} is my answer.`, []string{"3"}},
		{"two objects", `Criteria {"a": 1} and final {"score": 5}`, []string{"<nil>", "5"}},
		{"no json", "I think it is fine.", nil},
		{"unterminated", `{"score": 4`, nil},
		{"array is not an object", `[{"score": 1}]`, []string{"1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := JSONObjects(tc.text)
			var scores []string
			for _, o := range got {
				scores = append(scores, fmt.Sprint(o["score"]))
			}
			if fmt.Sprint(scores) != fmt.Sprint(tc.want) {
				t.Errorf("got %v, want %v", scores, tc.want)
			}
		})
	}
}

func FuzzJSONObjects(f *testing.F) {
	for _, s := range []string{`{"score": 4}`, "```json\n{\"a\":1}\n```", `x {"b": "}"} y`, `{{{`, `"{\"}"`, ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		objs := JSONObjects(s)
		if len(objs) > maxObjects {
			t.Fatalf("%d objects", len(objs))
		}
		for _, o := range objs {
			if o == nil {
				t.Fatal("nil object")
			}
		}
	})
}

func TestJSONObjectsStrayBracesStayBounded(t *testing.T) {
	// Only the first maxStarts braces of prose are tried, so a reply full of stray braces costs
	// at most maxStarts scans; an object past them is not looked for.
	text := strings.Repeat("{ ", maxStarts) + `{"score": 1}`
	if got := JSONObjects(text); len(got) != 0 {
		t.Errorf("an object past the bound was found: %v", got)
	}
	text = strings.Repeat("{ ", maxStarts-1) + `{"score": 1}`
	if got := JSONObjects(text); len(got) != 1 {
		t.Errorf("an object within the bound was missed: %v", got)
	}
}
