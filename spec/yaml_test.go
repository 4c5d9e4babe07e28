package spec

import (
	"reflect"
	"strings"
	"testing"
)

func TestYAMLValue(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want any
	}{
		{"scalars", "s: text\ni: 42\nh: 0x1F\nu: 1_000\nf: 1.5\nb: true\nn: ~\nt: 2024-01-02\nq: '7'\ninf: .inf",
			map[string]any{"s": "text", "i": int64(42), "h": int64(31), "u": int64(1000), "f": 1.5, "b": true, "n": nil, "t": "2024-01-02", "q": "7", "inf": ".inf"}},
		{"alias", "a: &x [1, 2]\nb: *x", map[string]any{"a": []any{int64(1), int64(2)}, "b": []any{int64(1), int64(2)}}},
		{"merge", "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n  z: 4",
			map[string]any{"base": map[string]any{"x": int64(1), "y": int64(2)}, "m": map[string]any{"x": int64(1), "y": int64(3), "z": int64(4)}}},
		{"merge list, first wins", "a: &a {k: 1}\nb: &b {k: 2, j: 2}\nm: {<<: [*a, *b]}",
			map[string]any{"a": map[string]any{"k": int64(1)}, "b": map[string]any{"k": int64(2), "j": int64(2)}, "m": map[string]any{"k": int64(1), "j": int64(2)}}},
		{"quoted merge key is a key", "'<<': 1", map[string]any{"<<": int64(1)}},
		{"tags", "a: !!str 12\nb: !!float 3\nc: !custom x", map[string]any{"a": "12", "b": 3.0, "c": "x"}},
		{"big int", "a: 99999999999999999999", map[string]any{"a": 99999999999999999999.0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, diags := parseYAML("x.yaml", []byte(c.src))
			if len(diags) != 0 {
				t.Fatalf("diagnostics: %s", render(diags))
			}
			if !reflect.DeepEqual(doc.Value, c.want) {
				t.Errorf("got %#v\nwant %#v", doc.Value, c.want)
			}
		})
	}
}

func TestYAMLProblems(t *testing.T) {
	cases := []struct {
		name, src, want string
		line, col       int
	}{
		{"duplicate key", "a: 1\nb: 2\na: 3", `duplicate key "a" (first defined at x.yaml:1:1)`, 3, 1},
		{"alias cycle", "a: &x\n  b: *x", "refers to a value that contains it", 2, 6},
		{"bad merge", "a: {<<: 5}", "merge key `<<` needs a mapping", 1, 5},
		{"empty", "# only a comment\n", "the file is empty", 1, 1},
		{"two documents", "a: 1\n---\nb: 2", "holds 2 YAML documents", 3, 1},
		{"complex key", "? [a, b]\n: 1", "a mapping key must be a string", 1, 3},
		{"scanner error", "a: 1\nb: c: d", "mapping values are not allowed", 2, 1},
		{"parser error", "a: 1\nb: {x: 1\nc: 2", "did not find expected ',' or '}'", 2, 1},
		{"alias bomb", aliasBomb(), "expands to too many values", 1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, diags := parseYAML("x.yaml", []byte(c.src))
			for _, d := range diags {
				if strings.Contains(d.Message, c.want) && d.Pos.Line == c.line && d.Pos.Col == c.col {
					return
				}
			}
			t.Errorf("no %q at %d:%d; got %s", c.want, c.line, c.col, render(diags))
		})
	}
}

// aliasBomb is the "billion laughs" document: a few lines that expand to 10^9 values.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	return b.String()
}

func TestNodeAt(t *testing.T) {
	doc, _ := parseYAML("x.yaml", []byte("graders:\n  - name: a\n    config:\n      a/b: [x, y]\n"))
	key, val, path := nodeAt(doc.Root, "/graders/0/config/a~1b/1")
	if key != nil || val.Value != "y" || val.Line != 4 || val.Column != 16 {
		t.Errorf("value node = %+v", val)
	}
	if got := KeyPath(path...); got != "graders[0].config.a/b[1]" {
		t.Errorf("path = %s", got)
	}
	key, _, _ = nodeAt(doc.Root, "/graders/0/config")
	if key == nil || key.Line != 3 || key.Column != 5 {
		t.Errorf("key node = %+v", key)
	}
	// A pointer past the tree stops at the deepest node found.
	_, val, path = nodeAt(doc.Root, "/graders/7/x")
	if val.Line != 2 || KeyPath(path...) != "graders" {
		t.Errorf("deepest = %+v %v", val, path)
	}
}

func TestSuggest(t *testing.T) {
	cases := map[string]string{"contain": "contains", "regex_macth": "regex_match", "wieght": "weight", "zzzzzz": "", "x": ""}
	for word, want := range cases {
		if got := suggest(word, []string{"contains", "regex_match", "weight", "not_contains"}); got != want {
			t.Errorf("suggest(%q) = %q, want %q", word, got, want)
		}
	}
}

// Plain documents (no aliases or merges) take a path that checks duplicates without copying;
// both paths must find them, in small and large mappings.
func TestDuplicateKeysBothPaths(t *testing.T) {
	var big strings.Builder
	for i := 0; i < 40; i++ {
		big.WriteString("a" + strings.Repeat("x", i) + ": 1\n")
	}
	big.WriteString("k: 2\nk: 3\n")
	for _, src := range []string{"a: 1\na: 2\n", "x: &y 1\na: 1\na: *y\n", big.String()} {
		_, diags := parseYAML("x.yaml", []byte(src))
		if len(diags) != 1 || !strings.Contains(diags[0].Message, "duplicate key") {
			t.Errorf("%q: %s", src, render(diags))
		}
	}
}
