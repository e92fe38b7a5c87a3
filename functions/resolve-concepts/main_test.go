package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"regintel/shared/config"
	"regintel/shared/graph"
	"regintel/shared/queue"
	"regintel/shared/resolver"
)

// TestSampleEvent runs the handler as wired for a local invoke (in-memory
// graph, no enrichment queue) on events/sqs-concepts.json.
func TestSampleEvent(t *testing.T) {
	t.Setenv("MEMGRAPH_URI", "")
	t.Setenv("ENRICHMENT_QUEUE_URL", "")
	raw, err := os.ReadFile("../../events/sqs-concepts.json")
	if err != nil {
		t.Fatal(err)
	}
	var ev events.SQSEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	if len(ev.Records) != 2 {
		t.Fatalf("sample has %d records, want 2", len(ev.Records))
	}
	var ids []string
	for _, r := range ev.Records {
		env, err := queue.Decode([]byte(r.Body))
		if err != nil {
			t.Fatalf("record %s: %v", r.MessageId, err)
		}
		p, err := queue.DecodeConceptsCaptured(env)
		if err != nil {
			t.Fatalf("record %s: %v", r.MessageId, err)
		}
		for _, c := range p.Concepts {
			ids = append(ids, c.ID)
		}
	}

	h, store, err := wire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := h.HandleSQS(context.Background(), ev)
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	// The seeded graph already names two of the captured concepts under
	// other ids: they join those nodes instead of becoming twins.
	joined := map[string]string{"VEHICLES:IE:VRT": "TAX:IE:VRT", "WELFARE:IE:JOBSEEKERS_BENEFIT": "SOCIAL_WELFARE:IE:JOBSEEKERS_BENEFIT"}
	var want []string
	for _, id := range ids {
		if existing, ok := joined[id]; ok {
			id = existing
		}
		want = append(want, id)
	}
	nodes, err := store.GetNodesByIDs(context.Background(), want)
	if err != nil || len(nodes) != len(ids) {
		t.Fatalf("graph holds %d of %v (err %v)", len(nodes), want, err)
	}
	for twin := range joined {
		if twins, _ := store.GetNodesByIDs(context.Background(), []string{twin}); len(twins) != 0 {
			t.Errorf("twin %s created", twin)
		}
	}
}

func TestBadFreshnessFailsStart(t *testing.T) {
	t.Setenv("MEMGRAPH_URI", "")
	t.Setenv("ENRICHMENT_FRESHNESS_DAYS", "soon")
	if _, _, err := wire(context.Background()); err == nil {
		t.Fatal("bad ENRICHMENT_FRESHNESS_DAYS accepted")
	}
}

// wire builds the function as main does, from the environment.
func wire(ctx context.Context) (*resolver.Handler, graph.ConceptStore, error) {
	cfg, err := config.FromEnv()
	if err != nil {
		return nil, nil, err
	}
	return build(ctx, cfg, slog.Default())
}
