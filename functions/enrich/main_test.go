package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"regintel/shared/config"
	"regintel/shared/enrich"
	"regintel/shared/graph"
	"regintel/shared/llm/llmtest"
	"regintel/shared/queue"
)

// env sets the function's environment for one test: only the given
// variables, everything else the function reads unset.
func env(t *testing.T, vars map[string]string) {
	for _, k := range []string{"MEMGRAPH_URI", "OPENAI_API_KEY", "OPENAI_SECRET_ARN", "OPENAI_BASE_URL", "LLM_PROVIDER", "ENRICHMENT_FRESHNESS_DAYS", "AWS_LAMBDA_RUNTIME_API"} {
		t.Setenv(k, vars[k])
	}
}

// TestSampleEvent runs the handler as wired for a local invoke (in-memory
// seeded graph) on events/sqs-enrichment.json. The seed already holds VAT
// rates, so the job is a no-op: nothing is fetched and the model is not
// called.
func TestSampleEvent(t *testing.T) {
	raw, err := os.ReadFile("../../events/sqs-enrichment.json")
	if err != nil {
		t.Fatal(err)
	}
	var ev events.SQSEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	if len(ev.Records) != 1 {
		t.Fatalf("sample has %d records, want 1", len(ev.Records))
	}
	envl, err := queue.Decode([]byte(ev.Records[0].Body))
	if err != nil {
		t.Fatal(err)
	}
	job, err := queue.DecodeEnrichmentRequested(envl)
	if err != nil || job.ConceptID != "TAX:IE:VAT" {
		t.Fatalf("sample job %+v: %v", job, err)
	}

	fake := llmtest.NewServer(t)
	env(t, map[string]string{"OPENAI_BASE_URL": fake.BaseURL(), "LLM_PROVIDER": "openai"})
	h, store, err := wire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := h.HandleSQS(context.Background(), ev)
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	if st := h.Stats(); st.Jobs != 1 || st.ByOutcome[enrich.OutcomeFresh] != 1 || len(fake.Requests()) != 0 {
		t.Fatalf("stats %+v, %d LLM requests", st, len(fake.Requests()))
	}
	if nodes, err := store.GetNodesByIDs(context.Background(), []string{job.ConceptID}); err != nil || len(nodes) != 1 {
		t.Fatalf("concept missing: %v", err)
	}

	// A poison record next to it is reported failed, the valid one is not.
	ev.Records = append(ev.Records, events.SQSMessage{MessageId: "poison", Body: "not an envelope"})
	resp, _ = h.HandleSQS(context.Background(), ev)
	if len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != "poison" {
		t.Fatalf("failures %+v", resp.BatchItemFailures)
	}
}

func TestStartRefusesBadConfig(t *testing.T) {
	for name, vars := range map[string]map[string]string{
		"no key":          {},
		"bad freshness":   {"OPENAI_API_KEY": "k", "ENRICHMENT_FRESHNESS_DAYS": "soon"},
		"no tool support": {"OPENAI_API_KEY": "k", "LLM_PROVIDER": "offline"},
	} {
		t.Run(name, func(t *testing.T) {
			env(t, vars)
			if _, _, err := wire(context.Background()); err == nil {
				t.Errorf("%s: started", name)
			}
		})
	}
}

// wire builds the function as main does, from the environment.
func wire(ctx context.Context) (*enrich.Handler, graph.ConceptStore, error) {
	cfg, err := config.FromEnv()
	if err != nil {
		return nil, nil, err
	}
	return build(ctx, cfg, slog.Default())
}
