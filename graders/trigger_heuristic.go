package graders

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// The `trigger` grader of newer waza releases (config `skill_path`, `mode`, `threshold`) judges
// the task's prompt, not the run: how well the prompt matches the words of the skill's SKILL.md.
// It answers "is this prompt one the skill should catch?" without an agent, so it grades the
// same under every executor. skillgate's own `trigger` config (`skill`, `should_trigger`) checks
// what the agent invoked instead (trigger.go); the keys decide which one a declaration means.
// Semantics follow waza (docs/graders.md, "trigger"):
//
//   - words: the prompt and SKILL.md are split on anything but letters and digits, lower-cased,
//     and words shorter than three letters or in a small stop list are dropped;
//   - the skill's vocabulary is its name, its description up to "DO NOT USE FOR:", its body, and
//     the phrases its description lists after "USE FOR:";
//   - token score: distinct prompt words found in the vocabulary / distinct prompt words (a
//     repeated word does not dilute the score);
//   - phrase score: 1 when the prompt contains a USE FOR phrase, else the best share of a
//     phrase's words found in the prompt;
//   - score = the larger of the two; positive mode passes at score ≥ threshold (default 0.6),
//     negative mode below it.

const defaultTriggerThreshold = 0.6

type triggerHeuristicConfig struct {
	SkillPath string   `yaml:"skill_path"`
	Mode      string   `yaml:"mode"`
	Threshold *float64 `yaml:"threshold"`
}

type triggerHeuristicGrader struct {
	def       *spec.Grader
	positive  bool
	threshold float64
	skillPath string // as written, for details
	words     map[string]bool
	phrases   []string
}

// triggerConfigFor is the trigger type's config: a declaration that writes any of the keys of
// waza's heuristic means the heuristic.
func triggerConfigFor(keys []string) any {
	for _, k := range keys {
		if k == "skill_path" || k == "mode" || k == "threshold" {
			return new(triggerHeuristicConfig)
		}
	}
	return new(triggerConfig)
}

func compileTriggerHeuristic(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[triggerHeuristicConfig](def)
	g := &triggerHeuristicGrader{def: def, threshold: defaultTriggerThreshold, skillPath: cfg.SkillPath}
	var diags spec.Diagnostics
	switch strings.ToLower(strings.TrimSpace(cfg.Mode)) {
	case "positive":
		g.positive = true
	case "negative":
	default:
		diags = append(diags, badMode(def, "mode", cfg.Mode, "positive", "negative"))
	}
	if cfg.Threshold != nil {
		g.threshold = *cfg.Threshold
		if g.threshold < 0 || g.threshold > 1 || g.threshold != g.threshold {
			diags = append(diags, spec.Errorf(def.ConfigAt("threshold"), "config.threshold", "write a number from 0 to 1, e.g. 0.6",
				"grader %q: threshold %v is outside [0, 1]", def.Name, *cfg.Threshold))
		}
	}
	if strings.TrimSpace(cfg.SkillPath) == "" {
		diags = append(diags, spec.Errorf(def.ConfigPos(), "config.skill_path", "add `skill_path:` naming the skill's SKILL.md",
			"grader %q: skill_path is not set", def.Name))
	}
	if diags.HasErrors() {
		return nil, diags
	}
	path, found := findSkillFile(absDir(def.Dir), cfg.SkillPath)
	if !found {
		// waza reads skill_path relative to the working directory and fails the runs when the file
		// is not there; the suite still loads.
		msg := fmt.Sprintf("grader %q: skill_path %s not found (looked in the working directory and the folders up to the repository root)", def.Name, cfg.SkillPath)
		return Failing(msg), spec.Diagnostics{spec.Warnf(def.ConfigAt("skill_path"), "config.skill_path", "write the path relative to the repository root",
			"%s; it errors in every run", msg)}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		msg := fmt.Sprintf("grader %q: cannot read %s: %v", def.Name, cfg.SkillPath, err)
		return Failing(msg), spec.Diagnostics{spec.Warnf(def.ConfigAt("skill_path"), "config.skill_path", "", "%s; it errors in every run", msg)}
	}
	g.words, g.phrases = skillVocabulary(string(data))
	if len(g.words) == 0 {
		return nil, spec.Diagnostics{spec.Errorf(def.ConfigAt("skill_path"), "config.skill_path", "give the skill a name and a description",
			"grader %q: %s has no usable words", def.Name, cfg.SkillPath)}
	}
	return g, nil
}

// findSkillFile is findSuiteFile for skill_path, which waza also reads as a folder holding a
// SKILL.md.
func findSkillFile(dir, written string) (string, bool) {
	if p, ok := findSuiteFile(dir, written); ok {
		return p, true
	}
	return findSuiteFile(dir, filepath.Join(written, "SKILL.md"))
}

// findSuiteFile resolves a path written relative to the working directory, as waza reads it:
// the working directory, then dir and each folder above it up to the repository root.
func findSuiteFile(dir, written string) (string, bool) {
	if filepath.IsAbs(written) {
		fi, err := os.Stat(written)
		return written, err == nil && fi.Mode().IsRegular()
	}
	for _, base := range snapshotSearchDirs(dir) {
		p := filepath.Join(base, filepath.FromSlash(written))
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}

func (g *triggerHeuristicGrader) Grade(_ context.Context, in *Input) (*results.GraderResult, error) {
	prompt := ""
	if in != nil && in.Task != nil {
		prompt = in.Task.Prompt
	}
	score, phraseScore, matched := g.score(prompt)
	passed := score >= g.threshold
	mode := "positive"
	var feedback string
	switch {
	case g.positive && passed:
		feedback = fmt.Sprintf("Prompt is trigger-aligned (score %.2f >= %.2f)", score, g.threshold)
	case g.positive:
		feedback = fmt.Sprintf("Prompt is not trigger-aligned enough (score %.2f < %.2f)", score, g.threshold)
	case !passed:
		mode, passed = "negative", true
		feedback = fmt.Sprintf("Prompt correctly treated as non-trigger (score %.2f < %.2f)", score, g.threshold)
	default:
		mode, passed = "negative", false
		feedback = fmt.Sprintf("Prompt appears trigger-aligned unexpectedly (score %.2f >= %.2f)", score, g.threshold)
	}
	return result(g.def, score, passed, feedback, map[string]any{
		"mode":             mode,
		"threshold":        g.threshold,
		"skill_path":       g.skillPath,
		"matched_keywords": matched,
		"matched_count":    len(matched),
		"keyword_count":    len(g.words),
		"phrase_score":     phraseScore,
	}), nil
}

func (g *triggerHeuristicGrader) score(prompt string) (score, phraseScore float64, matched []string) {
	words := triggerWords(prompt)
	if len(words) == 0 {
		return 0, 0, []string{}
	}
	matched = []string{}
	seen := map[string]bool{}
	for _, w := range words {
		if seen[w] {
			continue
		}
		seen[w] = true
		if g.words[w] {
			matched = append(matched, w)
		}
	}
	tokenScore := float64(len(matched)) / float64(len(seen))
	phraseScore = g.phraseScore(prompt, words)
	return max(tokenScore, phraseScore), phraseScore, matched
}

func (g *triggerHeuristicGrader) phraseScore(prompt string, promptWords []string) float64 {
	lower := strings.ToLower(prompt)
	inPrompt := map[string]bool{}
	for _, w := range promptWords {
		inPrompt[w] = true
	}
	best := 0.0
	for _, phrase := range g.phrases {
		p := strings.ToLower(strings.TrimSpace(phrase))
		if p == "" {
			continue
		}
		if strings.Contains(lower, p) {
			return 1
		}
		words := triggerWords(phrase)
		if len(words) == 0 {
			continue
		}
		hits := 0
		for _, w := range words {
			if inPrompt[w] {
				hits++
			}
		}
		best = max(best, float64(hits)/float64(len(words)))
	}
	return best
}

// triggerStopWords are dropped from prompts and skills alike: waza's list, which keeps "use",
// "when" and "help" as words.
var triggerStopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the and for with this that from into your you are was were what where how
		why not can should using about have has had but all any too out get let`) {
		triggerStopWords[w] = true
	}
}

// triggerWords splits text into lower-case words of three or more letters or digits, without
// stop words, in order (repeats kept).
func triggerWords(text string) []string {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		if len(f) >= 3 && !triggerStopWords[f] {
			out = append(out, f)
		}
	}
	return out
}

// skillVocabulary reads a SKILL.md: the words of its name, description (up to "DO NOT USE
// FOR:"), body and USE FOR phrases, and the phrases themselves.
func skillVocabulary(text string) (map[string]bool, []string) {
	name, description, body := splitSkillFile(text)
	kept := description
	if i := strings.Index(strings.ToUpper(kept), "DO NOT USE FOR:"); i >= 0 {
		kept = strings.TrimSpace(kept[:i])
	}
	words := map[string]bool{}
	for _, w := range triggerWords(name + " " + kept + " " + body) {
		words[w] = true
	}
	var phrases []string
	for _, p := range useForPhrases(description) {
		phrases = append(phrases, p)
		for _, w := range triggerWords(p) {
			words[w] = true
		}
	}
	return words, phrases
}

// splitSkillFile returns a SKILL.md's frontmatter name and description and its body.
func splitSkillFile(text string) (name, description, body string) {
	text = strings.ReplaceAll(strings.TrimPrefix(text, "\ufeff"), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return "", "", text
	}
	rest := text[4:]
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return "", "", text
	}
	var fm struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
	}
	_ = yaml.Unmarshal([]byte(rest[:end]), &fm)
	body = rest[end+4:]
	if i := strings.IndexByte(body, '\n'); i >= 0 {
		body = body[i+1:]
	} else {
		body = ""
	}
	return fm.Name, fm.Description, body
}

// useForLabels end a "USE FOR:" list.
var useForLabels = []string{"DO NOT USE FOR:", "INVOKES:", "FOR SINGLE OPERATIONS:"}

// quotedPhrase is one "quoted" phrase (straight or curly quotes).
var quotedPhrase = regexp.MustCompile(`["\x{201C}\x{201D}]([^"\x{201C}\x{201D}]+)["\x{201C}\x{201D}]`)

// trailingNote is a "(parenthetical note)" at the end of a phrase.
var trailingNote = regexp.MustCompile(`\s*\([^)]*\)\s*$`)

// useForPhrases lists the phrases a skill description gives after "USE FOR:" (not the one inside
// "DO NOT USE FOR:"), up to the next label: the quoted ones when any are quoted, else the
// comma-separated items without trailing notes.
func useForPhrases(description string) []string {
	text := strings.Join(strings.Fields(strings.ReplaceAll(description, "\r\n", "\n")), " ")
	upper := strings.ToUpper(text)
	start := -1
	for from := 0; ; {
		i := strings.Index(upper[from:], "USE FOR:")
		if i < 0 {
			break
		}
		pos := from + i
		if strings.Contains(upper[max(0, pos-11):pos], "NOT ") {
			from = pos + len("USE FOR:")
			continue
		}
		start = pos + len("USE FOR:")
		break
	}
	if start < 0 {
		return nil
	}
	section := text[start:]
	for _, label := range useForLabels {
		if i := strings.Index(strings.ToUpper(section), label); i >= 0 {
			section = section[:i]
		}
	}
	section = strings.TrimRight(strings.TrimSpace(section), ".")
	var out []string
	if quoted := quotedPhrase.FindAllStringSubmatch(section, -1); len(quoted) > 0 {
		for _, q := range quoted {
			if p := strings.TrimSpace(q[1]); p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	for _, part := range strings.Split(section, ",") {
		if p := strings.TrimSpace(trailingNote.ReplaceAllString(strings.TrimSpace(part), "")); p != "" {
			out = append(out, p)
		}
	}
	return out
}
