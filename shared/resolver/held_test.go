package resolver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"regintel/shared/concept"
	"regintel/shared/graph"
	"regintel/shared/graph/write"
	"regintel/shared/metrics"
	"regintel/shared/metrics/metricstest"
	"regintel/shared/queue"
	"regintel/shared/quota"
)

// tenantRecord is a concepts.captured record of the given tenant's turn.
func tenantRecord(t *testing.T, msgID, tenant string, concepts ...concept.Concept) events.SQSMessage {
	t.Helper()
	env, err := queue.NewEnvelope(queue.TypeConceptsCaptured, queue.ConceptsCaptured{TenantID: tenant, Concepts: concepts})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(env)
	return events.SQSMessage{MessageId: msgID, Body: string(body), EventSource: "aws:sqs"}
}

// personalKinds are kinds a tenant's model may write that the guard's
// detectors let through: a name with "claim", a family trust, an email and
// a street address written as words.
var personalKinds = []string{"JOHN_MURPHY_CLAIM", "murphy family trust", "JANE AT EXAMPLE DOT COM", "12 MAIN STREET"}

// TestUnlistedKindMakesNoNodeAndNoLogText: a captured kind outside the
// vocabulary makes no node; its enrichment job is marked held and carries
// the kind only in the message; no log line holds the kind. A vocabulary
// kind in the same turn is written and enriched as before.
func TestUnlistedKindMakesNoNodeAndNoLogText(t *testing.T) {
	f := newFixture(t)
	var sink metricstest.Sink
	f.h.metrics = metrics.New(&sink, "resolve-concepts", nil)
	concepts := []concept.Concept{mk("welfare", "IE", "CARERS_ALLOWANCE", "Carer's Allowance")}
	for _, k := range personalKinds {
		concepts = append(concepts, mk("welfare", "IE", k, "Carer support"))
	}
	resp, err := f.h.HandleSQS(context.Background(), events.SQSEvent{Records: []events.SQSMessage{tenantRecord(t, "m1", "tenant-a", concepts...)}})
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("%+v, %v", resp, err)
	}
	var ids []string
	for _, c := range concepts {
		ids = append(ids, c.ID)
	}
	nodes, err := f.store.GetNodesByIDs(context.Background(), ids)
	if err != nil || len(nodes) != 1 || nodes[0].ID != "WELFARE:IE:CARERS_ALLOWANCE" {
		t.Fatalf("graph holds %+v, %v; want only the vocabulary kind", nodes, err)
	}
	held := 0
	for _, env := range f.enrich.msgs {
		job, err := queue.DecodeEnrichmentRequested(env)
		if err != nil {
			t.Fatal(err)
		}
		if job.Held != !concept.KnownKind(job.Kind) {
			t.Errorf("job %+v: held must say the kind is outside the vocabulary", job)
		}
		if job.Held {
			held++
		}
	}
	// The guard reads the email in words as an email and refuses it before
	// any job; every other personal kind is held.
	refused := 0
	for _, c := range concepts {
		if write.CheckCaptured(c) != nil {
			refused++
		}
	}
	if refused != 1 {
		t.Fatalf("the guard refused %d of the kinds, want 1 (the email in words)", refused)
	}
	if held != len(personalKinds)-refused || len(f.enrich.msgs) != len(concepts)-refused {
		t.Fatalf("%d jobs, %d held; want one per concept the guard let through, %d held", len(f.enrich.msgs), held, len(personalKinds)-refused)
	}
	logs := strings.ToUpper(f.logs.String())
	for _, k := range personalKinds {
		for _, form := range []string{concept.IDPart(k, ""), strings.ToUpper(k), "MURPHY", "MAIN_STREET", "EXAMPLE"} {
			if strings.Contains(logs, form) {
				t.Errorf("a log line holds %q: %s", form, f.logs.String())
			}
		}
	}
	if got := sink.Records(t)[0].Value("ConceptsHeld"); got != float64(len(personalKinds)-refused) {
		t.Errorf("ConceptsHeld = %v, want %d", got, len(personalKinds)-refused)
	}
}

// TestQuotaStopsThe21stNewNode: a tenant's 21st new shared node of the UTC
// day is not written and is counted; another tenant is not held back.
func TestQuotaStopsThe21stNewNode(t *testing.T) {
	f := newFixture(t)
	f.h.quota = quota.New(quota.NewMemory(), quota.Limits{NewNodes: 20, EnrichmentJobs: 1000})
	var sink metricstest.Sink
	f.h.metrics = metrics.New(&sink, "resolve-concepts", nil)
	var concepts []concept.Concept
	for _, k := range concept.Kinds[:21] {
		concepts = append(concepts, mk("tax", "IE", k, "Concept"))
	}
	other := mk("tax", "UK", "VAT", "Value-Added Tax")
	ev := events.SQSEvent{Records: []events.SQSMessage{
		tenantRecord(t, "m1", "tenant-a", concepts[:15]...), tenantRecord(t, "m2", "tenant-a", concepts[15:]...),
		tenantRecord(t, "m3", "tenant-b", other)}}
	if resp, err := f.h.HandleSQS(context.Background(), ev); err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("%+v, %v", resp, err)
	}
	var ids []string
	for _, c := range concepts {
		ids = append(ids, c.ID)
	}
	nodes, _ := f.store.GetNodesByIDs(context.Background(), ids)
	if len(nodes) != 20 {
		t.Fatalf("tenant-a made %d new nodes, want 20", len(nodes))
	}
	if n, _ := f.store.GetNodesByIDs(context.Background(), []string{other.ID}); len(n) != 1 {
		t.Fatal("another tenant's new node was held back")
	}
	if got := sink.Records(t)[0].Value("NewNodesOverQuota"); got != 1.0 {
		t.Errorf("NewNodesOverQuota = %v, want 1", got)
	}
	// A capture naming a node that exists takes nothing from the quota.
	again := tenantRecord(t, "m4", "tenant-a", concepts[0])
	if resp, _ := f.h.HandleSQS(context.Background(), events.SQSEvent{Records: []events.SQSMessage{again}}); len(resp.BatchItemFailures) != 0 {
		t.Fatalf("%+v", resp)
	}
	if got := sink.Records(t)[1].Value("NewNodesOverQuota"); got != 0.0 {
		t.Errorf("an existing node counted as new: NewNodesOverQuota = %v", got)
	}
}

// TestQuotaStopsThe51stJob: a tenant's 51st enrichment job of the UTC day
// is not queued and its mark is cleared, so another tenant's capture of
// the same concept queues it.
func TestQuotaStopsThe51stJob(t *testing.T) {
	f := newFixture(t)
	f.h.quota = quota.New(quota.NewMemory(), quota.Limits{NewNodes: 20, EnrichmentJobs: 50})
	var sink metricstest.Sink
	f.h.metrics = metrics.New(&sink, "resolve-concepts", nil)
	// 51 bare nodes already in the graph, none with detail: each capture
	// asks for a job, none makes a new node.
	var concepts []concept.Concept
	for _, k := range concept.Kinds[:51] {
		concepts = append(concepts, mk("tax", "IE", k, "Concept"))
	}
	if err := f.store.Store.UpsertConcepts(context.Background(), concepts, graph.ProvenanceCapture, f.now); err != nil {
		t.Fatal(err)
	}
	ev := events.SQSEvent{Records: []events.SQSMessage{tenantRecord(t, "m1", "tenant-a", concepts[:40]...), tenantRecord(t, "m2", "tenant-a", concepts[40:]...)}}
	if resp, err := f.h.HandleSQS(context.Background(), ev); err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("%+v, %v", resp, err)
	}
	if len(f.enrich.msgs) != 50 {
		t.Fatalf("%d jobs queued, want 50", len(f.enrich.msgs))
	}
	if got := sink.Records(t)[0].Value("EnrichmentJobsOverQuota"); got != 1.0 {
		t.Errorf("EnrichmentJobsOverQuota = %v, want 1", got)
	}
	queued := map[string]bool{}
	for _, id := range f.enrich.conceptIDs(t) {
		queued[id] = true
	}
	var left concept.Concept
	for _, c := range concepts {
		if !queued[c.ID] {
			left = c
		}
	}
	other := tenantRecord(t, "m3", "tenant-b", left)
	if resp, _ := f.h.HandleSQS(context.Background(), events.SQSEvent{Records: []events.SQSMessage{other}}); len(resp.BatchItemFailures) != 0 {
		t.Fatalf("%+v", resp)
	}
	if len(f.enrich.msgs) != 51 || f.enrich.conceptIDs(t)[50] == "" {
		t.Fatalf("the concept left out was not queued for another tenant: %d jobs", len(f.enrich.msgs))
	}
	if !strings.Contains(f.logs.String(), "resolver_job_quota_exceeded") {
		t.Error("no log line for the jobs over quota")
	}
}
