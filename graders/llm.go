package graders

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/skillgate/skillgate/graders/judge"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func init() {
	// The three judges share one config and compiler; the type picks the verdict.
	for _, t := range []struct{ name, summary string }{
		{"prompt", "An LLM judge reads the task, the agent's output, trajectory and changed files and calls set_waza_grade_pass / set_waza_grade_fail per criterion (score = passes / calls); with a rubric it scores 1–5 like llm."},
		{"llm", "An LLM judge scores the run 1–5 against a rubric, normalized to 0–1 as (s−1)/4; it passes at or above the threshold (default 0.75)."},
		{"llm_comparison", "An LLM judge compares the agent's output with a reference answer and scores the match 1–5 (normalized; passes at or above the threshold, default 0.75)."},
	} {
		Register(&Type{Name: t.name, Summary: t.summary, Config: newConfig[llmConfig], Compile: compileLLM, Files: llmFiles, Judge: true, ReadsWorkspace: true})
	}
}

// The verdict tools of the prompt grader (waza's names and arguments).
const (
	toolPass = "set_waza_grade_pass"
	toolFail = "set_waza_grade_fail"
)

var verdictTools = []judge.Tool{
	verdictTool(toolPass, "Record that a criterion is met."),
	verdictTool(toolFail, "Record that a criterion is not met."),
}

func verdictTool(name, desc string) judge.Tool {
	return judge.Tool{Type: "function", Function: judge.Function{
		Name: name, Description: desc,
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"description": map[string]any{"type": "string", "description": "The criterion."},
				"reason":      map[string]any{"type": "string", "description": "Why it is or is not met."},
			},
			"required": []string{"description", "reason"},
		},
	}}
}

type llmConfig struct {
	Prompt          string   `yaml:"prompt"`
	Model           string   `yaml:"model"`
	Rubric          string   `yaml:"rubric"`
	Reference       string   `yaml:"reference"`
	Threshold       *float64 `yaml:"threshold"`
	ScoreType       string   `yaml:"score_type"`
	ResponseFormat  string   `yaml:"response_format"`
	ContinueSession bool     `yaml:"continue_session"`
	Mode            string   `yaml:"mode"`
}

// llmGrader is prompt, llm and llm_comparison: one judge call per run.
type llmGrader struct {
	def       *spec.Grader
	client    *judge.Client
	model     string
	criteria  string // the prompt and/or rubric
	reference string
	tools     bool // verdict through set_waza_grade_pass/fail; else a JSON score
	threshold float64
	scoreType string
	jsonMode  bool // ask for response_format json_object
	hash      string
}

func compileLLM(def *spec.Grader, env *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[llmConfig](def)
	var diags spec.Diagnostics
	g := &llmGrader{def: def, threshold: 0.75, scoreType: "normalized", reference: strings.TrimSpace(cfg.Reference)}
	if cfg.Threshold != nil {
		g.threshold = *cfg.Threshold
		if math.IsNaN(g.threshold) || g.threshold < 0 || g.threshold > 1 {
			diags = append(diags, spec.Errorf(def.ConfigAt("threshold"), "config.threshold", "write a number from 0 to 1, e.g. 0.75",
				"grader %q: threshold %v is outside [0, 1]", def.Name, *cfg.Threshold))
		}
	}
	switch cfg.ScoreType {
	case "", "normalized":
	case "raw":
		g.scoreType = "raw"
	default:
		diags = append(diags, spec.Errorf(def.ConfigAt("score_type"), "config.score_type", "use one of: normalized, raw",
			"grader %q: unknown score_type %q", def.Name, cfg.ScoreType))
	}
	rubric, d := loadRubric(def, cfg.Rubric)
	if d != nil {
		diags = append(diags, *d)
	}
	switch def.Type {
	case "prompt":
		if strings.TrimSpace(cfg.Prompt) == "" && strings.TrimSpace(cfg.Rubric) == "" {
			return nothingToCheck(def, "prompt", "rubric")
		}
		g.criteria = joinNonEmpty(strings.TrimSpace(cfg.Prompt), rubric)
		g.tools = strings.TrimSpace(cfg.Rubric) == ""
	case "llm":
		if strings.TrimSpace(cfg.Rubric) == "" {
			return nothingToCheck(def, "rubric")
		}
		g.criteria = rubric
	case "llm_comparison":
		if g.reference == "" {
			return nothingToCheck(def, "reference")
		}
		g.criteria = rubric
		if g.criteria == "" {
			g.criteria = "Score how well the agent's final answer matches the reference answer: 5 = the same facts and requirements are covered, nothing wrong is added; 3 = partly; 1 = not at all."
		}
	}
	g.jsonMode = !g.tools && cfg.ResponseFormat != "text"
	if cfg.ContinueSession {
		diags = append(diags, spec.Warnf(def.ConfigAt("continue_session"), "config.continue_session", "remove it",
			"grader %q: continue_session is not supported; the judge sees the task, the output, the trajectory and the changed files instead", def.Name))
	}
	if cfg.Mode == "pairwise" {
		diags = append(diags, spec.Warnf(def.ConfigAt("mode"), "config.mode", "remove it",
			"grader %q: pairwise mode is not supported (waza never runs it either); the run is judged on its own", def.Name))
	}
	if diags.HasErrors() {
		return nil, diags
	}

	if env == nil {
		env = &Env{}
	}
	// Where the judge is (endpoint, key, model) depends on the machine, not on the suite: a
	// missing piece makes this grader error in the runs it grades, with a warning now, so the
	// suite still validates offline and its other graders still run (docs/graders.md).
	setup, ed := env.judge()
	if ed.HasErrors() {
		return Failing(fmt.Sprintf("grader %q (%s): %s", def.Name, def.Type, ed.Errors()[0].Message)), append(diags, deferJudge(ed)...)
	}
	diags = append(diags, ed...)
	if setup == nil || setup.client == nil {
		msg := fmt.Sprintf("grader %q (%s) needs an LLM judge, and no judge endpoint is configured", def.Name, def.Type)
		return Failing(msg), append(diags, spec.Warnf(def.Pos, "type", noEndpointFix, "%s; it errors in every run", msg).OfMachine())
	}
	g.client = setup.client
	g.model = setup.judgeModel(cfg.Model)
	if g.model == "" {
		msg := fmt.Sprintf("grader %q: no judge model is set, and the endpoint %s has no default", def.Name, g.client.BaseURL())
		d := spec.Warnf(def.ConfigAt("model"), "config.model", "set config.model, config.judge_model in eval.yaml, --judge-model or SKILLGATE_JUDGE_MODEL",
			"%s; it errors in every run", msg)
		if !setup.fromConfig {
			// The machine chose an endpoint without a default model; the suite cannot know it.
			d = d.OfMachine()
		}
		return Failing(msg), append(diags, d)
	}
	h := sha256.New()
	for _, s := range []string{judgeSystemPrompt, g.model, g.criteria, g.reference, strconv.FormatBool(g.tools), g.scoreType} {
		io.WriteString(h, s)
		h.Write([]byte{0})
	}
	g.hash = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return g, diags
}

// deferJudge turns the errors of the judge set-up into warnings: the LLM graders error in their
// runs instead.
func deferJudge(ds spec.Diagnostics) spec.Diagnostics {
	out := make(spec.Diagnostics, len(ds))
	for i, d := range ds {
		if d.Severity == spec.SevError {
			d.Severity = spec.SevWarning
			d.Message += "; LLM graders error in every run"
		}
		out[i] = d
	}
	return out
}

// loadRubric returns the rubric text: the value itself, or the content of the file it names
// (relative to the declaring file). A one-line value is a file when such a file exists or when
// it looks like a file name (ends in .md, .txt, .prompt, .yaml, .yml); then the file must exist.
func loadRubric(def *spec.Grader, value string) (string, *spec.Diagnostic) {
	v := strings.TrimSpace(value)
	if v == "" || strings.Contains(v, "\n") {
		return v, nil
	}
	path := filepath.FromSlash(v)
	if !filepath.IsAbs(path) {
		path = filepath.Join(absDir(def.Dir), path)
	}
	data, err := readDeclared(def, nil, path)
	if err == nil {
		return strings.TrimSpace(string(data)), nil
	}
	// A one-line rubric may name a folder by chance: only links out and oversized files count.
	if fix := spec.RefusedFix(err); fix != "" && !isSpecialFile(err) {
		d := spec.Errorf(def.ConfigAt("rubric"), "config.rubric", fix, "grader %q: rubric file refused: %v", def.Name, err)
		return "", &d
	}
	if looksLikeFileName(v) {
		d := spec.Errorf(def.ConfigAt("rubric"), "config.rubric", "the rubric file is relative to the file that declares the grader ("+displayDir(def.Dir)+")",
			"grader %q: rubric file %s not found", def.Name, v)
		if !errors.Is(err, os.ErrNotExist) {
			d = spec.Errorf(def.ConfigAt("rubric"), "config.rubric", "", "grader %q: cannot read rubric file %s: %v", def.Name, v, err)
		}
		return "", &d
	}
	return v, nil
}

// looksLikeFileName reports a one-line rubric that names a file by its extension.
func looksLikeFileName(v string) bool {
	switch strings.ToLower(filepath.Ext(v)) {
	case ".md", ".txt", ".prompt", ".yaml", ".yml", ".prompty":
		return true
	}
	return false
}

// llmFiles is the rubric file a judge reads (loadRubric): a one-line rubric that names an
// existing file, or looks like a file name.
func llmFiles(def *spec.Grader) []string {
	v := strings.TrimSpace(configOf[llmConfig](def).Rubric)
	if v == "" || strings.Contains(v, "\n") {
		return nil
	}
	p := filepath.FromSlash(v)
	if !filepath.IsAbs(p) {
		p = filepath.Join(absDir(def.Dir), p)
	}
	if _, err := os.Stat(p); err == nil || looksLikeFileName(v) {
		return []string{p}
	}
	return nil
}

func joinNonEmpty(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n\n")
}

// JudgeModel is the model the grader asks.
func (g *llmGrader) JudgeModel() string { return g.model }

// JudgePromptHash identifies the judge's instructions (system prompt, criteria, reference,
// model, verdict form), so a changed judge is visible when two results files are compared.
func (g *llmGrader) JudgePromptHash() string { return g.hash }

func (g *llmGrader) request(in *Input) *judge.Request {
	verdict := toolsVerdictInstructions
	if !g.tools {
		verdict = jsonVerdictInstructions(g.scoreType)
	}
	material := buildMaterial(in)
	req := &judge.Request{
		Model: g.model,
		Messages: []judge.Message{
			judge.NewMessage("system", judgeSystemPrompt+"\n\n"+verdict),
			judge.NewMessage("user", material.userMessage(g.criteria, g.reference, verdict)),
		},
		Temperature: new(float64),
	}
	if g.tools {
		req.Tools = verdictTools
		req.ToolChoice = "required"
	} else if g.jsonMode {
		req.ResponseFormat = &judge.ResponseFormat{Type: "json_object"}
	}
	return req
}

func (g *llmGrader) Grade(ctx context.Context, in *Input) (*results.GraderResult, error) {
	req := g.request(in)
	var verdict *results.GraderResult
	accept := func(resp *judge.Response) error {
		var err error
		if g.tools {
			verdict, err = g.toolVerdict(resp)
		} else {
			verdict, err = g.scoreVerdict(resp)
		}
		return err
	}
	res, err := g.client.Complete(ctx, req, accept)
	if err != nil {
		return nil, fmt.Errorf("judge %s: %w", g.model, err)
	}
	verdict.Details["judge_model"] = g.model
	verdict.Details["cached"] = res.Cached
	verdict.Details["request_key"] = res.Key
	return verdict, nil
}

// toolVerdict counts set_waza_grade_pass / set_waza_grade_fail calls (waza's prompt grader):
// score = passes / (passes + fails), passed = no fail and at least one pass.
func (g *llmGrader) toolVerdict(resp *judge.Response) (*results.GraderResult, error) {
	msg := resp.First()
	var passes, fails []string
	for _, c := range msg.ToolCalls {
		var verdict string
		switch c.Function.Name {
		case toolPass:
			verdict = "pass"
		case toolFail:
			verdict = "fail"
		default:
			continue
		}
		entry := verdict
		var args struct {
			Description string `json:"description"`
			Reason      string `json:"reason"`
		}
		if json.Unmarshal([]byte(c.Function.Arguments), &args) == nil && (args.Description != "" || args.Reason != "") {
			entry = verdict + ": " + args.Description + ": " + args.Reason
		}
		if verdict == "pass" {
			passes = append(passes, entry)
		} else {
			fails = append(fails, entry)
		}
	}
	if len(passes)+len(fails) == 0 {
		return nil, fmt.Errorf("the judge gave no verdict: it called neither %s nor %s (reply: %s)", toolPass, toolFail, replyExcerpt(msg))
	}
	score := float64(len(passes)) / float64(len(passes)+len(fails))
	passed := len(fails) == 0 && len(passes) > 0
	feedback := "All prompts passed"
	if !passed {
		feedback = strings.Join(fails, ";")
	}
	response := msg.Text()
	if response == "" {
		response = "<no response content>"
	}
	return result(g.def, score, passed, feedback, map[string]any{
		"response": response,
		"prompt":   g.criteria,
		"passes":   strings.Join(passes, ";"),
		"failures": strings.Join(fails, ";"),
	}), nil
}

// scoreKeys are where a rubric reply's score is looked for, in order; then the one key ending
// in "_score" when there is exactly one.
var scoreKeys = []string{"score", "overall_score", "overall", "rating"}

// scoreVerdict reads the JSON score of a rubric reply: 1–5 normalized as (s−1)/4, or a raw
// 0–1 score; passed = score ≥ threshold.
func (g *llmGrader) scoreVerdict(resp *judge.Response) (*results.GraderResult, error) {
	msg := resp.First()
	objs := judge.JSONObjects(msg.Text())
	var obj map[string]any
	var raw float64
	var key string
	for i := len(objs) - 1; i >= 0 && obj == nil; i-- {
		if k, v, ok := findScore(objs[i]); ok {
			obj, key, raw = objs[i], k, v
		}
	}
	if obj == nil {
		return nil, fmt.Errorf("the judge's reply holds no JSON object with a numeric score (reply: %s)", replyExcerpt(msg))
	}
	var score float64
	if g.scoreType == "raw" {
		if raw < 0 || raw > 1 {
			return nil, fmt.Errorf("the judge gave %s %v, outside the raw 0–1 scale (reply: %s)", key, raw, replyExcerpt(msg))
		}
		score = raw
	} else {
		if raw < 1 || raw > 5 {
			return nil, fmt.Errorf("the judge gave %s %v, outside the 1–5 scale (use score_type: raw for 0–1 rubrics; reply: %s)", key, raw, replyExcerpt(msg))
		}
		score = (raw - 1) / 4
	}
	passed := score >= g.threshold
	reasoning, _ := obj["reasoning"].(string)
	scale := "/5"
	if g.scoreType == "raw" {
		scale = ""
	}
	feedback := fmt.Sprintf("Judge score %s%s (%.2f; threshold %.2f)", strconv.FormatFloat(raw, 'f', -1, 64), scale, score, g.threshold)
	if reasoning != "" {
		feedback += ": " + reasoning
	}
	details := map[string]any{
		"judge_score": raw,
		"score_type":  g.scoreType,
		"threshold":   g.threshold,
		"reasoning":   reasoning,
		"verdict":     plainValue(obj),
	}
	if jp, ok := obj["passed"].(bool); ok {
		details["judge_passed"] = jp
	}
	return result(g.def, score, passed, feedback, details), nil
}

func findScore(obj map[string]any) (string, float64, bool) {
	for _, k := range scoreKeys {
		if v, ok := number(obj[k]); ok {
			return k, v, true
		}
	}
	found, key, val := 0, "", 0.0
	for k, raw := range obj {
		if strings.HasSuffix(strings.ToLower(k), "_score") {
			if v, ok := number(raw); ok {
				found, key, val = found+1, k, v
			}
		}
	}
	return key, val, found == 1
}

// number reads a JSON number, or a string holding one ("4").
func number(v any) (float64, bool) {
	switch t := v.(type) {
	case json.Number:
		f, err := t.Float64()
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	case float64:
		return t, !math.IsNaN(t) && !math.IsInf(t, 0)
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return 0, false
}

func replyExcerpt(m judge.Message) string {
	text := strings.TrimSpace(m.Text())
	if text == "" && m.Refusal != nil {
		text = "refusal: " + *m.Refusal
	}
	if text == "" {
		return "(empty)"
	}
	return strconvQuote(truncateMiddle(text, 300))
}

func strconvQuote(s string) string { return strconv.Quote(s) }
