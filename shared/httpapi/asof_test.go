package httpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"regintel/shared/conversation"
	"regintel/shared/graph"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/llm/llmtest"
)

// datingGraph is the seeded memory graph that records each grounding
// query and dates the facts of the series in dated as told, the way a
// store holding valid time returns them.
type datingGraph struct {
	*graphmem.Store
	mu      sync.Mutex
	queries []graph.GroundingQuery
	dated   map[string]graph.Fact // validFrom, validTo and status by series
}

func (g *datingGraph) Ground(ctx context.Context, q graph.GroundingQuery) ([]graph.GroundedConcept, error) {
	g.mu.Lock()
	g.queries = append(g.queries, q)
	g.mu.Unlock()
	found, err := g.Store.Ground(ctx, q)
	for _, c := range found {
		for i, f := range c.Facts {
			if d, ok := g.dated[f.Series]; ok {
				c.Facts[i].ValidFrom, c.Facts[i].ValidTo, c.Facts[i].Status = d.ValidFrom, d.ValidTo, d.Status
			}
		}
	}
	return found, err
}

func (g *datingGraph) lastAsOf() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.queries[len(g.queries)-1].AsOf.Format(time.DateOnly)
}

func newDatingEnv(t *testing.T, dated map[string]graph.Fact) (*env, *datingGraph) {
	mem, err := graphmem.NewSeeded(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	g := &datingGraph{Store: mem, dated: dated}
	return newEnv(t, envOptions{graph: g}), g
}

// The as-of date is the request's, else the question's, else today's; the
// graph is asked for that date and the metadata says which it was and why,
// on the SSE stream and in the UI message stream's message metadata.
func TestAsOfDateComesFromTheRequestTheQuestionOrToday(t *testing.T) {
	before := time.Now().UTC().Format(time.DateOnly)
	for _, tc := range []struct {
		name string
		body map[string]any
		want conversation.AsOf
	}{
		{"request", map[string]any{"message": "What is the VAT rate in 2025?", "asOf": "2023-03-01"}, conversation.AsOf{Date: "2023-03-01", Source: "request"}},
		{"question", map[string]any{"message": "What was the USC rate in 2023?"}, conversation.AsOf{Date: "2023-07-01", Source: "question", Phrase: "in 2023"}},
		{"question before", map[string]any{"message": "PRSI before October 2024?"}, conversation.AsOf{Date: "2024-09-30", Source: "question", Phrase: "before October 2024"}},
		{"today", map[string]any{"message": "What is the VAT rate?"}, conversation.AsOf{Date: before, Source: "today"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, g := newDatingEnv(t, nil)
			e.llm.Enqueue(llmtest.TextScript("An answer."), llmtest.TextScript("An answer."))
			m := e.chat(tc.body, nil).metadata(t)
			if tc.want.Source == "today" && m.AsOf != nil && m.AsOf.Date != before {
				tc.want.Date = time.Now().UTC().Format(time.DateOnly) // the day turned during the test
			}
			if m.AsOf == nil || *m.AsOf != tc.want {
				t.Fatalf("metadata asOf %+v, want %+v", m.AsOf, tc.want)
			}
			if got := g.lastAsOf(); got != tc.want.Date {
				t.Fatalf("graph asked as of %s, want %s", got, tc.want.Date)
			}
			body := tc.body
			body["messages"] = []map[string]any{{"role": "user", "parts": []map[string]any{{"type": "text", "text": body["message"]}}}}
			delete(body, "message")
			raw, _ := json.Marshal(body)
			resp := e.post("/chat?protocol=ui-message-stream", "application/json", string(raw), nil)
			if got := finishAsOf(t, resp.Body); got != tc.want {
				t.Fatalf("UI stream asOf %+v, want %+v", got, tc.want)
			}
		})
	}
}

// sentText is everything a model request carries: the facts may travel in
// the instructions or in a message of their own.
func sentText(r llmtest.RecordedRequest) string {
	text := r.System
	for _, m := range r.Messages {
		text += "\n" + m.Content
	}
	return text
}

// finishAsOf is the asOf of a UI message stream's finish chunk.
func finishAsOf(t *testing.T, body string) conversation.AsOf {
	t.Helper()
	for _, raw := range uiChunks(t, body) {
		var chunk struct {
			Type            string `json:"type"`
			MessageMetadata struct {
				AsOf conversation.AsOf `json:"asOf"`
			} `json:"messageMetadata"`
		}
		if json.Unmarshal([]byte(raw), &chunk) == nil && chunk.Type == "finish" {
			return chunk.MessageMetadata.AsOf
		}
	}
	t.Fatalf("no finish chunk in %s", body)
	return conversation.AsOf{}
}

func TestAsOfThatIsNotADateIsRefusedAndNothingStored(t *testing.T) {
	for bad, code := range map[any]string{"2023-02-29": "invalid_request", "15/03/2024": "invalid_request",
		"2024-03-15T00:00:00Z": "invalid_request", "1850-01-01": "invalid_request", 2023: "malformed_json"} {
		e, _ := newDatingEnv(t, nil)
		resp := e.chat(map[string]any{"message": "VAT rate?", "asOf": bad}, nil)
		if resp.Status != 400 || !strings.Contains(resp.Body, `"`+code+`"`) {
			t.Fatalf("asOf %v: %d %s", bad, resp.Status, resp.Body)
		}
		if n := len(e.conversationIDs("tenant-a")) + len(e.llm.Requests()); n != 0 {
			t.Fatalf("asOf %v: %d conversations or model calls after a refused request", bad, n)
		}
	}
}

// Each citation carries the fact's value, unit and valid time; the prompt
// shows the validity, and a value that starts after today is marked as
// announced, not yet in force.
func TestCitationsCarryValueAndValidityAndThePromptShowsThem(t *testing.T) {
	e, _ := newDatingEnv(t, map[string]graph.Fact{
		"TAX:IE:VAT:RATE:STANDARD": {ValidFrom: "2021-03-01", Status: "in_force"},
		"TAX:IE:VAT:RATE:REDUCED":  {ValidFrom: "2099-01-01", Status: "announced"},
	})
	e.llm.Enqueue(llmtest.TextScript("The standard rate is 23%."), llmtest.TextScript("The standard rate is 23%."))
	m := e.chat(map[string]any{"message": "What is the Irish VAT rate?", "profile": map[string]any{"jurisdictions": []string{"IE"}}}, nil).metadata(t)
	var standard conversation.Citation
	for _, c := range m.Citations {
		if strings.HasPrefix(c.NodeID, "TAX:IE:VAT:RATE:STANDARD:") {
			standard = c
		}
	}
	if standard.Value == nil || *standard.Value != 23 || standard.Unit != "%" || standard.ValidFrom == nil || *standard.ValidFrom != "2021-03-01" ||
		standard.ValidTo != nil || standard.Status != "in_force" || !strings.HasPrefix(standard.URL, "https://www.revenue.ie/") {
		t.Fatalf("standard rate citation %+v", standard)
	}
	system := sentText(e.llm.Requests()[0])
	for _, want := range []string{"valid from 2021-03-01 (in_force)", "valid from 2099-01-01 (announced); announced, not yet in force"} {
		if !strings.Contains(system, want) {
			t.Errorf("prompt lacks %q:\n%s", want, system)
		}
	}
	if strings.Count(system, "not yet in force") != 1 {
		t.Errorf("only the announced value is marked not yet in force:\n%s", system)
	}
}
