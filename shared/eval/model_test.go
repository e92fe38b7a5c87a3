package eval_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"regintel/shared/eval"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/llm/llmtest"
	"regintel/shared/llm/openai"
)

// With a model, the answer's numbers are checked against the citations:
// here the OpenAI fake answers one question with the cited value and one
// with a number no fact carries.
func TestModelScoresNumbers(t *testing.T) {
	mem, err := graphmem.NewSeeded(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t)
	provider := openai.NewResponses(openai.Config{APIKey: "test", BaseURL: srv.BaseURL(), Model: "gpt-test", HTTPClient: srv.Client()})
	var items []eval.Item
	for _, it := range golden(t) {
		if slices.Contains([]string{"ie-prsi-2023", "uk-ni-feb-2024"}, it.ID) {
			items = append(items, it)
		}
	}
	if len(items) != 2 {
		t.Fatalf("found %d of the 2 questions", len(items))
	}
	byID := map[string]string{
		"ie-prsi-2023":   "In 2023 the Class A employee rate was 4% of earnings, as it was until 30 September 2024.",
		"uk-ni-feb-2024": "From 6 January 2024 the main rate was 9.5%.",
	}
	for _, it := range items {
		srv.Enqueue(llmtest.TextScript(byID[it.ID]))
	}
	rep := eval.Run(context.Background(), eval.Client{Handler: modelHandler(mem, provider)}, items, eval.Options{Today: time.Now(), Model: true})
	got := map[string]eval.Result{}
	for _, r := range rep.Results {
		got[r.ID] = r
	}
	check := func(id string, want bool) {
		t.Helper()
		if score := got[id].NumbersAccurate; score == nil || *score != want {
			t.Errorf("%s: numbers accurate %v, want %v (%+v)", id, score, want, got[id])
		}
	}
	check("ie-prsi-2023", true)
	check("uk-ni-feb-2024", false)
	if s := rep.Summary; s.NumberAccuracy != (eval.Metric{Hits: 1, Of: 2, Rate: 0.5}) {
		t.Errorf("summary numbers %+v", s.NumberAccuracy)
	}
}
