package graders

import (
	"context"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// The comparison is blind (no side is named), its order is fixed by a hash of the key and the
// answers (the same on every rerun, shuffled across tasks), and the winner is mapped back onto the
// head: better, worse or tie, with the judge's reasoning.
func TestComparePairwise(t *testing.T) {
	in := PairwiseInput{Key: "suite\x00t1\x000", Prompt: "Explain TCR.", Expected: "Mentions test && commit || revert.", Head: "ALPHA TEXT", Base: "OMEGA TEXT"}
	var asked []string
	winner := "A"
	ask := func(_ context.Context, system, user string) (string, error) {
		asked = append(asked, user)
		return `{"scores": {"A": {"content": 4, "structure": 4}, "B": {"content": 2, "structure": 3}}, "winner": "` + winner + `", "reasoning": "A is complete."}`, nil
	}
	p, err := ComparePairwise(context.Background(), ask, "m", in)
	if err != nil {
		t.Fatal(err)
	}
	user := asked[0]
	first, second := strings.Index(user, "ALPHA TEXT"), strings.Index(user, "OMEGA TEXT")
	if first < 0 || second < 0 || (first < second) != p.HeadFirst {
		t.Fatalf("order: head at %d, base at %d, head first %v", first, second, p.HeadFirst)
	}
	for _, leak := range []string{"head", "base branch", "baseline"} {
		if strings.Contains(strings.ToLower(user), leak) {
			t.Errorf("the prompt names a side (%q):\n%s", leak, user)
		}
	}
	if !strings.Contains(user, "Mentions test && commit || revert.") {
		t.Errorf("the author's expectation is not shown")
	}
	wantA := results.PairwiseWorse
	if p.HeadFirst {
		wantA = results.PairwiseBetter
	}
	if p.Verdict != wantA || p.Reason != "A is complete." || p.Judge != "m" {
		t.Errorf("%+v", p)
	}
	again, _ := ComparePairwise(context.Background(), ask, "m", in)
	if again.HeadFirst != p.HeadFirst || asked[1] != asked[0] {
		t.Errorf("the order changed between runs")
	}
	// Over many keys the head is shown first about half the time.
	firsts := 0
	for i := range 200 {
		in.Key = "k" + string(rune('a'+i%26)) + strings.Repeat("x", i)
		if q, _ := ComparePairwise(context.Background(), ask, "m", in); q.HeadFirst {
			firsts++
		}
	}
	if firsts < 70 || firsts > 130 {
		t.Errorf("head first %d of 200 times", firsts)
	}
	winner = "tie"
	if p, _ := ComparePairwise(context.Background(), ask, "m", in); p.Verdict != results.PairwiseTie {
		t.Errorf("tie: %+v", p)
	}
	winner = "C"
	if _, err := ComparePairwise(context.Background(), ask, "m", in); err == nil || !strings.Contains(err.Error(), "names no winner") {
		t.Errorf("no winner: %v", err)
	}
}

// EndpointAsk sends the comparison to the suite's judge endpoint in JSON mode.
func TestEndpointAsk(t *testing.T) {
	reply := `{"winner": "B", "reasoning": "B is clearer."}`
	f := &fakeJudge{t: t, reply: func(map[string]any) (int, string) { return 200, completion(text(reply)) }}
	env, _ := judgeEnv(t, f, nil)
	ask, model, why := EndpointAsk(&spec.Suite{}, env.Judge)
	if ask == nil || model != "test-model" || why != "" {
		t.Fatalf("%v %q %q", ask, model, why)
	}
	p, err := ComparePairwise(context.Background(), ask, model, PairwiseInput{Key: "k", Prompt: "p", Head: "h", Base: "b"})
	if err != nil || p.Reason != "B is clearer." {
		t.Fatalf("%+v %v", p, err)
	}
	req := f.requests()[0]
	if req["response_format"] == nil || !strings.Contains(systemMessage(req), "You do not know which answer came from which version") {
		t.Errorf("request %v", req)
	}
	if ask, _, why := EndpointAsk(&spec.Suite{}, &JudgeOptions{Getenv: func(string) string { return "" }}); ask != nil || why != "no judge is configured" {
		t.Errorf("no endpoint: %q", why)
	}
}
