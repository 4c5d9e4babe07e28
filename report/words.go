package report

// The words of the changes (docs/statistics.md#what-changed-one-word-per-task), as every report shows them: one
// table, so a task reads the same in the comment, the summary, the terminal, `compare`, JUnit,
// SARIF and the annotations.
var changeWords = map[string]struct{ icon, label string }{
	ChangeNewFailure:   {"❌", "new failure"},
	ChangeWorse:        {"❌", "worse"},
	ChangeAddedFailing: {"❌", "new task, failing"},
	ChangeUnconfirmed:  {"❔", "looks worse, unconfirmed"},
	ChangeFlaky:        {"〰️", "within noise"},
	ChangeFixed:        {"✅", "fixed"},
	ChangeBetter:       {"🔺", "better"},
	ChangeStillFailing: {"➖", "still failing"},
	ChangeStillPassing: {"", "still passing"},
	ChangeAdded:        {"➕", "added"},
	ChangeRemoved:      {"🗑️", "removed"},
	ChangeYardstick:    {"📏", "definition changed"},
	ChangeNotCompared:  {"", "not compared"},
}

// changeWord is a change as people read it ("new failure"); "" for no change word.
func changeWord(change string) string { return changeWords[change].label }

// changeLabel is the word with its icon ("❌ new failure").
func changeLabel(change string) string {
	w := changeWords[change]
	if w.icon == "" {
		return w.label
	}
	return w.icon + " " + w.label
}

// wordSuffix is " (new failure)" for a task's word, "" when it has none.
func wordSuffix(change string) string {
	if w := changeWord(change); w != "" {
		return " (" + w + ")"
	}
	return ""
}
