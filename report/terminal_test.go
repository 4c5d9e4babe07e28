package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTerminalWithBaseline(t *testing.T) {
	var buf bytes.Buffer
	if err := Terminal(&buf, fixtureInput(t), TerminalOptions{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "\x1b") {
		t.Error("colour written without being asked for")
	}
	lines := strings.Split(out, "\n")
	// The fixture's runs were replayed: the first line says that no agent ran.
	if lines[0] != "replay executor: recorded runs were regraded, no agent ran" {
		t.Errorf("first line %q", lines[0])
	}
	lines = lines[1:]
	if !strings.HasPrefix(lines[0], "SUITE") || !strings.Contains(lines[0], "Δ SCORE (99% CI)") {
		t.Errorf("header %q", lines[0])
	}
	// Columns line up: RESULT starts at the same rune offset in the header and the row.
	col := func(line, word string) int { return utf8.RuneCountInString(line[:strings.Index(line, word)]) }
	if col(lines[0], "RESULT") != col(lines[1], "❌ failed") || col(lines[0], "DURATION") != col(lines[1], "24.0s") {
		t.Errorf("misaligned:\n%s\n%s", lines[0], lines[1])
	}
	assertContains(t, "terminal output", out, "code-explainer  1/4", "−0.36 (−0.85 to +0.13)", "trigger_accuracy 0.6364 below threshold 0.8", "(against the baseline): Inconclusive: mean score", "❌ trigger_accuracy below its threshold in code-explainer", "Not run (unaffected by this change): docs-writer")
}

func TestTerminalWithoutBaselineAndColour(t *testing.T) {
	s := &Suite{Result: suiteOf("alpha", repeat(counts{2, 2}, 3))}
	var plain, colour bytes.Buffer
	if err := Terminal(&plain, &Input{Suites: []*Suite{s}}, TerminalOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "Δ") {
		t.Errorf("no baseline, no delta columns:\n%s", plain.String())
	}
	row := strings.Fields(strings.Split(plain.String(), "\n")[1])
	if strings.Join(row, " ") != "alpha 3/3 100.0% 1.00 0.0s ✅ passed" {
		t.Errorf("row %q", row)
	}
	if err := Terminal(&colour, &Input{Suites: []*Suite{s}}, TerminalOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(colour.String(), ansiGreen+"✅ passed"+ansiReset) {
		t.Errorf("colour:\n%q", colour.String())
	}
	regressed, err := NewSuite(suiteOf("alpha", repeat(counts{0, 5}, 20)), suiteOf("alpha", repeat(counts{5, 5}, 20)), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	colour.Reset()
	Terminal(&colour, &Input{Suites: []*Suite{regressed}}, TerminalOptions{Color: true})
	if !strings.Contains(colour.String(), ansiRed+"❌ regressed"+ansiReset) || !strings.Contains(colour.String(), ansiRed+"−1.00") {
		t.Errorf("regressed colour:\n%q", colour.String())
	}
}
