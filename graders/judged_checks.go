package graders

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/skillgate/skillgate/graders/judge"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func init() {
	Register(&Type{Name: spec.JudgedChecksType,
		Summary: "A judge grades a list of checks written as sentences (skill-creator's assertions and expectations): PASS or FAIL per check with cited evidence, uncertainty is FAIL, all checks of a run in one call; each check is one result.",
		Config:  newConfig[judgedChecksConfig], Compile: compileJudgedChecks, Judge: true, ReadsWorkspace: true})
}

// Judge modes (JudgeOptions.Mode, a judged_checks grader's config.judge).
const (
	// JudgeEndpoint asks the configured OpenAI-compatible endpoint (GitHub Models by default).
	JudgeEndpoint = "endpoint"
	// JudgeAgent asks the agent CLI under test, run as a grader in the finished workspace, as
	// skill-creator does: no second API key.
	JudgeAgent = "agent"
)

type judgedChecksConfig struct {
	// Checks are sentences, or {name, text} mappings.
	Checks []*spec.Value `yaml:"checks"`
	Model  string        `yaml:"model"`
	// Judge is "agent" or "endpoint"; "" takes the run's --judge (default endpoint).
	Judge string `yaml:"judge"`
}

// judgedCheck is one check: a sentence, or {name, text}.
type judgedCheck struct {
	Name, Text string
}

// MultiGrader is a grader whose one declaration decides several checks: each is its own result
// (the runner records them in order; a task's score is the fraction of checks that passed).
type MultiGrader interface {
	Grader
	GradeChecks(ctx context.Context, in *Input) ([]*results.GraderResult, error)
}

// judgedChecksGrader grades every check of a run in one judge call.
type judgedChecksGrader struct {
	def    *spec.Grader
	checks []judgedCheck
	source []spec.Pos
	mode   string
	client *judge.Client // endpoint mode
	model  string
	// pending, when set, says why no judge can grade: every check is pending with it.
	pending string
	hash    string
}

// creatorRule is skill-creator's grading rule, which the judge applies to each check.
const creatorRule = `Grade each check PASS or FAIL, never partially. PASS only when the material gives clear evidence that the check is really met: substance, not surface compliance (a file with the right name and the wrong content fails; the agent saying it did something is not evidence that it did). When the material leaves it uncertain, the check FAILS. For each check, cite the evidence that decides it: quote or point at the exact part of the material.`

// judgedVerdictFormat is the reply the judge gives, skill-creator's grading.json shape.
const judgedVerdictFormat = `Reply with one JSON object and nothing else: {"expectations": [{"id": <the check's number>, "text": "<the check>", "passed": <true or false>, "evidence": "<the evidence you cite>"}, …]}, one entry per check, in order.`

func compileJudgedChecks(def *spec.Grader, env *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[judgedChecksConfig](def)
	g := &judgedChecksGrader{def: def}
	for i, v := range cfg.Checks {
		c := judgedCheck{Text: v.Text()}
		if v.IsMapping() {
			c = judgedCheck{Name: v.Key("name").Text(), Text: v.Key("text").Text()}
		}
		if strings.TrimSpace(c.Text) == "" {
			continue
		}
		if c.Name == "" {
			c.Name = fmt.Sprintf("check-%d", i+1)
		}
		g.checks = append(g.checks, c)
		g.source = append(g.source, def.ConfigAt("checks", i))
	}
	if len(g.checks) == 0 {
		return nothingToCheck(def, "checks")
	}
	if env == nil {
		env = &Env{}
	}
	g.mode = cmpOr(cfg.Judge, env.judgeMode())
	var diags spec.Diagnostics
	switch g.mode {
	case "", JudgeEndpoint:
		g.mode = JudgeEndpoint
		setup, ed := env.judge()
		diags = append(diags, deferJudge(ed)...)
		switch {
		case ed.HasErrors():
			g.pending = "no judge: " + ed.Errors()[0].Message
		case setup == nil || setup.client == nil:
			g.pending = "no judge is configured (GITHUB_TOKEN for GitHub Models, a judge endpoint, or --judge agent)"
		default:
			g.client = setup.client
			if g.model = setup.judgeModel(cfg.Model); g.model == "" {
				g.pending = fmt.Sprintf("no judge model is set, and the endpoint %s has no default", g.client.BaseURL())
				g.client = nil
			}
		}
		if g.pending != "" && env.warnPendingOnce() {
			diags = append(diags, spec.Warnf(def.Pos, "checks", noEndpointFix+"; or run with --judge agent",
				"%s: the checks a judge grades stay pending, never passed", g.pending).OfMachine())
		}
	case JudgeAgent:
		g.model = "agent"
	default:
		return nil, spec.Diagnostics{spec.Errorf(def.ConfigAt("judge"), "config.judge", "use agent or endpoint", "grader %q: unknown judge %q", def.Name, g.mode)}
	}
	h := sha256.New()
	for _, s := range []string{judgeSystemPrompt, creatorRule, judgedVerdictFormat, g.mode, g.model} {
		io.WriteString(h, s)
		h.Write([]byte{0})
	}
	for _, c := range g.checks {
		io.WriteString(h, c.Name+"\x00"+c.Text+"\x00")
	}
	g.hash = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return g, diags
}

// JudgeModel is the model that grades ("agent" when the agent CLI judges).
func (g *judgedChecksGrader) JudgeModel() string { return g.model }

// JudgePromptHash identifies the judge's instructions and the checks.
func (g *judgedChecksGrader) JudgePromptHash() string { return g.hash }

// Grade is the checks as one result: score = the fraction passed, passed = all passed.
func (g *judgedChecksGrader) Grade(ctx context.Context, in *Input) (*results.GraderResult, error) {
	rs, err := g.GradeChecks(ctx, in)
	if err != nil {
		return nil, err
	}
	passed, pending := 0, 0
	var failed []string
	var checks []any
	for _, r := range rs {
		switch {
		case r.Status == results.StatusPending:
			pending++
		case r.Passed:
			passed++
		default:
			failed = append(failed, r.Name+": "+r.Feedback)
		}
		checks = append(checks, map[string]any{"name": r.Name, "text": r.Details["check"], "passed": r.Passed, "evidence": r.Feedback})
	}
	if pending == len(rs) {
		return &results.GraderResult{Name: g.def.Name, Type: g.def.Type, Weight: g.def.Weight, Status: results.StatusPending, Feedback: rs[0].Feedback}, nil
	}
	feedback := fmt.Sprintf("%d of %d checks passed", passed, len(rs))
	if len(failed) > 0 {
		feedback += "; failed: " + strings.Join(failed, "; ")
	}
	return result(g.def, float64(passed)/float64(len(rs)-pending), len(failed) == 0 && pending == 0, feedback, map[string]any{"checks": checks}), nil
}

// GradeChecks is one result per check, in order, each positioned at its check.
func (g *judgedChecksGrader) GradeChecks(ctx context.Context, in *Input) ([]*results.GraderResult, error) {
	if why := g.pendingFor(in); why != "" {
		out := make([]*results.GraderResult, len(g.checks))
		for i, c := range g.checks {
			out[i] = g.checkResult(i, c)
			out[i].Status, out[i].Feedback = results.StatusPending, why
		}
		return out, nil
	}
	verdicts, raw, err := g.ask(ctx, in)
	if err != nil {
		return nil, err
	}
	out := make([]*results.GraderResult, len(g.checks))
	for i, c := range g.checks {
		r := g.checkResult(i, c)
		v, ok := verdicts[i]
		switch {
		case !ok:
			r.Feedback = "the judge gave no verdict for this check (uncertainty is FAIL)"
		default:
			r.Passed = v.passed
			r.Feedback = strings.TrimSpace(v.evidence)
			if r.Feedback == "" {
				r.Feedback = "the judge cited no evidence"
				r.Passed = false // PASS needs cited evidence
			}
		}
		if r.Passed {
			r.Score = 1
		}
		r.Details["judge"] = g.mode
		r.Details["judge_model"] = g.model
		if i == 0 {
			r.Details["response"] = truncateMiddle(raw, 4000)
		}
		out[i] = r
	}
	return out, nil
}

func (g *judgedChecksGrader) checkResult(i int, c judgedCheck) *results.GraderResult {
	return &results.GraderResult{Name: c.Name, Type: g.def.Type, Weight: 1, Details: map[string]any{"check": c.Text},
		Source: &results.Location{File: g.source[i].File, Line: g.source[i].Line, Col: g.source[i].Col}}
}

// pendingFor says why this run's checks cannot be judged ("" when they can): no judge, or no
// agent answer to judge (the mock executor).
func (g *judgedChecksGrader) pendingFor(in *Input) string {
	switch {
	case in.Executor == "mock":
		return "the mock executor ran no agent, so there is no answer to judge"
	case g.pending != "":
		return g.pending
	case g.mode == JudgeAgent && in.AskAgent == nil:
		return fmt.Sprintf("--judge agent needs an agent CLI, and the %s executor is none", cmpOr(in.Executor, "current"))
	}
	return ""
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// criteria lists the checks, numbered, with skill-creator's rule.
func (g *judgedChecksGrader) criteria() string {
	var b strings.Builder
	b.WriteString("Grade each of these checks of the agent's work:\n\n")
	for i, c := range g.checks {
		fmt.Fprintf(&b, "%d. %s\n", i+1, strings.TrimSpace(c.Text))
	}
	b.WriteString("\n")
	b.WriteString(creatorRule)
	return b.String()
}

type checkVerdict struct {
	passed   bool
	evidence string
}

// ask puts every check to the judge in one call and reads the verdicts, by check index.
func (g *judgedChecksGrader) ask(ctx context.Context, in *Input) (map[int]checkVerdict, string, error) {
	material := buildMaterial(in)
	user := material.userMessage(g.criteria(), "", judgedVerdictFormat)
	if g.mode == JudgeAgent {
		prompt := judgeSystemPrompt + "\n\nYou may read the files in the current folder (the agent's workspace) to check its work; change nothing.\n\n" + user
		run, err := in.AskAgent(ctx, prompt)
		if err != nil {
			return nil, "", fmt.Errorf("the agent as judge: %w", err)
		}
		v, err := g.parseVerdicts(run.FinalOutput)
		if err != nil {
			return nil, "", fmt.Errorf("the agent as judge: %w", err)
		}
		return v, run.FinalOutput, nil
	}
	req := &judge.Request{
		Model:          g.model,
		Messages:       []judge.Message{judge.NewMessage("system", judgeSystemPrompt+"\n\n"+creatorRule), judge.NewMessage("user", user)},
		Temperature:    new(float64),
		ResponseFormat: &judge.ResponseFormat{Type: "json_object"},
	}
	var verdicts map[int]checkVerdict
	var raw string
	_, err := g.client.Complete(ctx, req, func(resp *judge.Response) error {
		raw = resp.First().Text()
		var err error
		verdicts, err = g.parseVerdicts(raw)
		return err
	})
	if err != nil {
		return nil, "", fmt.Errorf("judge %s: %w", g.model, err)
	}
	return verdicts, raw, nil
}

// verdictLists are the keys a judge's reply may hold the per-check verdicts under
// (skill-creator's grading.json says expectations; agentskills.io says assertion_results).
var verdictLists = []string{"expectations", "assertion_results", "checks", "results", "verdicts"}

// parseVerdicts reads the judge's verdicts: each entry matched to a check by its number, else
// its text, else its place when the judge listed every check in order.
func (g *judgedChecksGrader) parseVerdicts(text string) (map[int]checkVerdict, error) {
	var list []any
	for _, obj := range judge.JSONObjects(text) {
		for _, key := range verdictLists {
			if l, ok := obj[key].([]any); ok && len(l) > 0 {
				list = l
				break
			}
		}
		if list != nil {
			break
		}
	}
	if list == nil {
		return nil, fmt.Errorf("the reply holds no {\"expectations\": [...]} verdicts (reply: %s)", strconv.Quote(truncateMiddle(strings.TrimSpace(text), 300)))
	}
	out := map[int]checkVerdict{}
	for pos, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		idx := -1
		if n, ok := number(m["id"]); ok && n >= 1 && int(n) <= len(g.checks) && n == float64(int(n)) {
			idx = int(n) - 1
		} else if t, ok := m["text"].(string); ok {
			for i, c := range g.checks {
				if strings.EqualFold(strings.TrimSpace(t), strings.TrimSpace(c.Text)) {
					idx = i
				}
			}
		}
		if idx < 0 && len(list) == len(g.checks) {
			idx = pos
		}
		if idx < 0 {
			continue
		}
		passed, ok := verdictBool(m)
		if !ok {
			continue // no verdict: the check fails as uncertain
		}
		evidence, _ := m["evidence"].(string)
		if evidence == "" {
			evidence, _ = m["reason"].(string)
		}
		out[idx] = checkVerdict{passed: passed, evidence: evidence}
	}
	if len(out) == 0 {
		return nil, errors.New("the reply holds no verdict for any check")
	}
	return out, nil
}

// verdictBool reads passed: true/false, or a PASS/FAIL word under passed, verdict or result.
func verdictBool(m map[string]any) (bool, bool) {
	for _, key := range []string{"passed", "verdict", "result", "pass"} {
		switch v := m[key].(type) {
		case bool:
			return v, true
		case string:
			switch strings.ToUpper(strings.TrimSpace(v)) {
			case "PASS", "PASSED", "TRUE", "YES":
				return true, true
			case "FAIL", "FAILED", "FALSE", "NO":
				return false, true
			}
		}
	}
	return false, false
}
