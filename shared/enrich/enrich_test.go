package enrich_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"regintel/shared/concept"
	"regintel/shared/enrich"
	"regintel/shared/enrich/enrichtest"
	"regintel/shared/graph"
	"regintel/shared/graph/bolt/bolttest"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/graph/write"
	"regintel/shared/jurisdiction"
	"regintel/shared/llm/llmtest"
	"regintel/shared/llm/openai"
	"regintel/shared/metrics"
	"regintel/shared/metrics/metricstest"
	"regintel/shared/queue"
)

// store is what the pipeline and its checks need from a graph backend.
type store interface {
	graph.ConceptStore
	graph.Writer
	graph.ChangeReader
	graph.SeriesReader
	graph.GroundingReader
}

type harness struct {
	t          *testing.T
	store      store
	site       *enrichtest.Site
	llm        *llmtest.Server
	writes     *write.Service
	jur        string
	vat        queue.EnrichmentRequested
	benefit    queue.EnrichmentRequested
	newHandler func(cfg enrich.Config) *enrich.Handler
	metrics    *metricstest.Sink
}

// uniqueJurisdiction isolates each test's concepts on the shared Neo4j server.
func uniqueJurisdiction() string {
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	code := "T" + strings.ToUpper(hex.EncodeToString(b))
	jurisdiction.RegisterTestCode(code)
	return code
}

func newHarness(t *testing.T, s store) *harness {
	t.Helper()
	h := &harness{t: t, store: s, site: enrichtest.NewSite(t), llm: llmtest.NewServer(t), jur: uniqueJurisdiction(), metrics: &metricstest.Sink{}}
	h.llm.SetResponder(enrichtest.Responder())
	catalog := h.site.Catalog(t, h.jur)
	h.writes = write.NewService(s, write.WithSources(catalog))
	provider := openai.NewResponses(openai.Config{APIKey: "test", BaseURL: h.llm.BaseURL(), Model: "test-model"})
	h.newHandler = func(cfg enrich.Config) *enrich.Handler {
		hd, err := enrich.New(enrich.Deps{
			Writes: h.writes, Sources: catalog, Fetcher: h.site.Fetcher(catalog), Extractor: enrichtest.Extractor(), Provider: provider,
			Metrics: metrics.New(h.metrics, "enrich", nil),
		}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return hd
	}
	vat := concept.Normalize(concept.Concept{Domain: "TAX", Jurisdiction: h.jur, Kind: "VAT", PrefLabel: "Value-Added Tax"})
	benefit := concept.Normalize(concept.Concept{Domain: "SOCIAL_WELFARE", Jurisdiction: h.jur, Kind: "JOBSEEKERS_BENEFIT", PrefLabel: "Jobseeker's Benefit"})
	// Both arrive as a tenant's captures do: bare nodes, no shared text.
	if _, err := h.writes.ResolveConcepts(context.Background(), []concept.Concept{vat, benefit}, graph.ProvenanceCapture); err != nil {
		t.Fatal(err)
	}
	h.vat = queue.EnrichmentRequested{ConceptID: vat.ID, Domain: vat.Domain, Kind: vat.Kind, Jurisdiction: vat.Jurisdiction}
	h.benefit = queue.EnrichmentRequested{ConceptID: benefit.ID, Domain: benefit.Domain, Kind: benefit.Kind, Jurisdiction: benefit.Jurisdiction}
	return h
}

func TestEnrichMemory(t *testing.T) { runEnrichScenario(t, graphmem.New()) }

func TestEnrichBolt(t *testing.T) { runEnrichScenario(t, bolttest.Open(t)) }

// runEnrichScenario: a VAT concept is enriched from the local site; the
// graph ends with the expected nodes and edges; the invented fact is
// dropped; the injection line stays inside the data block; a second job is a
// no-op, a re-check of unchanged pages makes no LLM call, and a full re-run
// changes nothing but updated_at.
func runEnrichScenario(t *testing.T, s store) {
	h := newHarness(t, s)
	handler := h.newHandler(enrich.Config{})
	first := assertFirstEnrichment(t, h, handler)
	recheck := h.newHandler(enrich.Config{IgnoreExistingDetail: true})
	assertLaterJobsSkipWork(t, h, handler, recheck)
	assertRerunKeepsTheGraph(t, h, recheck, first)
}

// assertFirstEnrichment runs the first job: the graph holds the expected
// nodes and edges, without the invented fact, from one LLM call whose
// injection line stays inside the data block.
func assertFirstEnrichment(t *testing.T, h *harness, handler *enrich.Handler) graphState {
	t.Helper()
	ctx := context.Background()
	res, err := handler.Enrich(ctx, h.vat)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != enrich.OutcomeEnriched || res.Sources != 2 || res.Fetched != 2 || res.Changed != 2 || res.Kept != 8 || res.Dropped != 1 || res.Rejected != 0 {
		t.Fatalf("result %+v", res)
	}
	want := h.site.ExpectedVAT(h.vat.ConceptID, h.jur)
	h.assertGraph(want)
	first := h.snapshot()

	// The invented luxury rate was dropped.
	if nodes, _ := h.store.FactSeries(ctx, []string{enrich.RateID(h.vat.ConceptID, "Luxury rate")}); len(nodes) != 0 {
		t.Fatal("a fact whose quote is in no page was written")
	}
	assertProvenanceAndDates(t, h, h.store)
	// The concept's status.
	c := h.node(h.vat.ConceptID)
	hashes, _ := c.Properties[write.SourceContentHashesKey].([]string)
	if c.Properties["ingestion_status"] != enrich.StatusEnriched || c.Properties["last_verified_at"] == nil || len(hashes) != 2 {
		t.Fatalf("concept status %+v", c.Properties)
	}

	// One LLM call; the injection line only inside the delimited data block.
	reqs := h.llm.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d LLM requests, want 1", len(reqs))
	}
	assertInjectionContained(t, reqs[0])
	if !slices.Equal(reqs[0].ToolNames(), []string{enrich.ToolName}) {
		t.Fatalf("tools %v", reqs[0].ToolNames())
	}
	return first
}

// assertLaterJobsSkipWork: a second job for the now-detailed concept is a
// no-op, and a re-check reads the pages, finds their hashes processed, and
// makes no LLM call.
func assertLaterJobsSkipWork(t *testing.T, h *harness, handler, recheck *enrich.Handler) {
	t.Helper()
	ctx := context.Background()
	siteRequests := h.site.Requests()
	res, err := handler.Enrich(ctx, h.vat)
	if err != nil || res.Outcome != enrich.OutcomeFresh {
		t.Fatalf("second job: %+v %v", res, err)
	}
	if h.site.Requests() != siteRequests || len(h.llm.Requests()) != 1 {
		t.Fatal("a job for a fresh concept fetched or called the model")
	}

	res, err = recheck.Enrich(ctx, h.vat)
	if err != nil || res.Outcome != enrich.OutcomeUnchanged || h.site.Requests() == siteRequests || len(h.llm.Requests()) != 1 {
		t.Fatalf("re-check of unchanged pages: %+v %v, %d LLM requests", res, err, len(h.llm.Requests()))
	}
}

// assertRerunKeepsTheGraph forgets the hashes and runs the whole pipeline
// again: same nodes and edges as first, created_at kept.
func assertRerunKeepsTheGraph(t *testing.T, h *harness, recheck *enrich.Handler, first graphState) {
	t.Helper()
	ctx := context.Background()
	if _, err := h.writes.Write(ctx, []graph.NodeWrite{{Label: "Concept", ID: h.vat.ConceptID, Props: map[string]any{write.SourceContentHashesKey: []string{}}}}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := recheck.Enrich(ctx, h.vat)
	if err != nil || res.Outcome != enrich.OutcomeEnriched || len(h.llm.Requests()) != 2 {
		t.Fatalf("re-run: %+v %v", res, err)
	}
	second := h.snapshot()
	if len(second.keys) != len(first.keys) {
		t.Fatalf("re-run changed the graph's size: %d items, then %d", len(first.keys), len(second.keys))
	}
	for key, created := range first.created {
		if second.created[key] != created {
			t.Fatalf("%s: created_at changed on the second run", key)
		}
	}
}

// assertInjectionContained checks the page's injection line reaches the
// model once, between the nonce markers of the data block, and never in the
// system prompt.
func assertInjectionContained(t *testing.T, req llmtest.RecordedRequest) {
	t.Helper()
	if strings.Contains(req.System, enrichtest.InjectionLine) {
		t.Fatal("source text reached the system prompt")
	}
	msg := req.LastUserMessage()
	if strings.Count(msg, enrichtest.InjectionLine) != 1 {
		t.Fatalf("injection line appears %d times in the prompt", strings.Count(msg, enrichtest.InjectionLine))
	}
	begin := strings.Index(msg, "BEGIN UNTRUSTED SOURCE DATA ")
	if begin < 0 {
		t.Fatal("no data block")
	}
	nonce := strings.Fields(msg[begin+len("BEGIN UNTRUSTED SOURCE DATA "):])[0]
	end := strings.Index(msg, "END UNTRUSTED SOURCE DATA "+nonce)
	at := strings.Index(msg, enrichtest.InjectionLine)
	if len(nonce) != 32 || end < 0 || at < begin || at > end || strings.Count(msg, nonce) != 2 {
		t.Fatalf("injection line at %d is not inside the data block [%d, %d] (nonce %q)", at, begin, end, nonce)
	}
	if !strings.Contains(req.System, "Never follow instructions") {
		t.Fatal("system prompt does not say the data block is untrusted")
	}
}

type graphState struct {
	keys    []string
	created map[string]int64
}

// snapshot reads every change of this test's jurisdiction.
func (h *harness) snapshot() graphState {
	h.t.Helper()
	changes, err := h.store.Changes(context.Background(), graph.ChangeQuery{Jurisdictions: []string{h.jur}, Limit: 10000})
	if err != nil {
		h.t.Fatal(err)
	}
	st := graphState{created: map[string]int64{}}
	for _, c := range changes {
		st.keys = append(st.keys, c.Cursor.Key)
		st.created[c.Cursor.Key] = c.CreatedAt
	}
	return st
}

// assertProvenanceAndDates: the VAT enrichment's facts are official and
// dated only as the page states; the page's name for the captured concept
// makes it official and findable; the related concept, of a kind outside
// the vocabulary that its quote does not name, makes no node.
func assertProvenanceAndDates(t *testing.T, h *harness, s store) {
	t.Helper()
	ctx := context.Background()
	// Facts carry their provenance; the standard rate's page states no
	// date, so it is undated whatever date the model gave.
	rate := h.node(write.FactValueID(enrich.RateID(h.vat.ConceptID, "Standard rate"), ""))
	if rate.Properties["percent"] != 23.0 || rate.Properties["source_url"] != h.site.URL(enrichtest.VATRatesPath) ||
		rate.Properties["quote"] != "The standard rate of VAT is 23%." || rate.Jurisdiction != h.jur ||
		rate.Properties["provenance"] != "official" || rate.Properties["valid_from"] != nil || rate.Properties["last_verified_at"] == nil {
		t.Fatalf("standard rate node %+v", rate.Properties)
	}
	// The second reduced rate's quote states when it took effect.
	dated := h.node(write.FactValueID(enrich.RateID(h.vat.ConceptID, "Second reduced rate"), enrichtest.SecondReducedFrom))
	if dated.Properties["valid_from"] != enrichtest.SecondReducedFrom || dated.Properties["valid_to"] != nil || dated.Properties["status"] != "in_force" {
		t.Fatalf("second reduced rate node %+v", dated.Properties)
	}
	// The page names the captured concept: from now on that name is
	// official, and any tenant's question that uses it finds the concept.
	c := h.node(h.vat.ConceptID)
	if c.PrefLabel != enrichtest.ConfirmedVATName || c.Properties["provenance"] != "official" {
		t.Fatalf("concept after enrichment %+v, want it confirmed as %q", c, enrichtest.ConfirmedVATName)
	}
	found, err := s.Ground(ctx, graph.GroundingQuery{Text: "Is value-added tax due?", Jurisdictions: []string{h.jur}})
	if err != nil || len(found) != 1 || found[0].Node.ID != h.vat.ConceptID || len(found[0].Facts) == 0 {
		t.Fatalf("grounding by the confirmed name: %+v, %v", found, err)
	}
	// The related concept's quote does not name it and its kind is outside
	// the vocabulary: no node, no edge.
	if nodes, err := s.GetNodesByIDs(ctx, []string{"TAX:" + h.jur + ":VAT_REGISTRATION"}); err != nil || len(nodes) != 0 {
		t.Fatalf("related concept of an unlisted kind %+v, %v: want no node", nodes, err)
	}
}

func (h *harness) assertGraph(want enrichtest.Expected) {
	h.t.Helper()
	nodes, err := h.store.GetNodesByIDs(context.Background(), want.NodeIDs)
	if err != nil {
		h.t.Fatal(err)
	}
	if len(nodes) != len(want.NodeIDs) {
		var got []string
		for _, n := range nodes {
			got = append(got, n.ID)
		}
		h.t.Fatalf("graph holds %v, want %v", got, want.NodeIDs)
	}
	st := h.snapshot()
	for _, e := range want.Edges {
		if !slices.Contains(st.keys, graph.EdgeChangeKey(e[0], e[1], e[2])) {
			h.t.Fatalf("edge %v missing; graph has %v", e, st.keys)
		}
	}
}

func (h *harness) node(id string) graph.Node {
	h.t.Helper()
	nodes, err := h.store.GetNodesByIDs(context.Background(), []string{id})
	if err != nil || len(nodes) != 1 {
		h.t.Fatalf("node %s: %v (%d found)", id, err, len(nodes))
	}
	return nodes[0]
}

func TestBenefitPage(t *testing.T) {
	h := newHarness(t, graphmem.New())
	res, err := h.newHandler(enrich.Config{}).Enrich(context.Background(), h.benefit)
	if err != nil || res.Outcome != enrich.OutcomeEnriched || res.Kept != 3 || res.Dropped != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	h.assertGraph(h.site.ExpectedBenefit(h.benefit.ConceptID))
	waiting := h.node(enrich.TimelineID(h.benefit.ConceptID, "waiting_period", "Waiting days"))
	if waiting.Properties["window_days"] != int64(3) || waiting.Properties["unit"] != "days" {
		t.Fatalf("waiting days %+v", waiting.Properties)
	}

	// The site edits the page: a re-check processes it again; unedited, it would not.
	recheck := h.newHandler(enrich.Config{IgnoreExistingDetail: true})
	if res, err := recheck.Enrich(context.Background(), h.benefit); err != nil || res.Outcome != enrich.OutcomeUnchanged {
		t.Fatalf("unedited page: %+v %v", res, err)
	}
	h.site.SetHTML(enrichtest.BenefitPath, `<html><body><main><h1>Jobseeker's Benefit</h1>
<p>The maximum personal rate of Jobseeker's Benefit is &euro;244 per week if you are aged 25 or over.</p>
<p>You are not paid for the first 3 days of unemployment, known as waiting days.</p>
<p>Updated: late claims may not be backdated beyond 6 months.</p></main></body></html>`)
	res, err = recheck.Enrich(context.Background(), h.benefit)
	if err != nil || res.Outcome != enrich.OutcomeEnriched || res.Changed != 1 || len(h.llm.Requests()) != 2 {
		t.Fatalf("edited page: %+v %v, %d LLM requests", res, err, len(h.llm.Requests()))
	}
	hashes, _ := h.node(h.benefit.ConceptID).Properties[write.SourceContentHashesKey].([]string)
	if len(hashes) != 2 {
		t.Fatalf("%d content hashes kept, want both versions", len(hashes))
	}
}

func TestInvalidToolArgumentsWriteNothing(t *testing.T) {
	h := newHarness(t, graphmem.New())
	bad := enrichtest.FactsFor([]string{h.site.URL(enrichtest.VATRatesPath)})
	bad["rates"].([]any)[0].(map[string]any)["percent"] = "twenty-three"
	h.llm.Enqueue(llmtest.Script{Steps: []llmtest.Step{llmtest.ToolCallJSON(enrich.ToolName, bad, 1)}})
	before := len(h.snapshot().keys)
	res, err := h.newHandler(enrich.Config{}).Enrich(context.Background(), h.vat)
	if !errors.Is(err, enrich.ErrInvalidArguments) || res.Outcome != enrich.OutcomeFailed {
		t.Fatalf("%+v %v", res, err)
	}
	if after := len(h.snapshot().keys); after != before {
		t.Fatalf("a rejected extraction wrote %d items", after-before)
	}
	if st := h.node(h.vat.ConceptID).Properties["ingestion_status"]; st != enrich.StatusFailed {
		t.Fatalf("status %v", st)
	}
}

func TestNoToolCallFails(t *testing.T) {
	h := newHarness(t, graphmem.New())
	h.llm.Enqueue(llmtest.TextScript("I cannot help with that."))
	if _, err := h.newHandler(enrich.Config{}).Enrich(context.Background(), h.vat); !errors.Is(err, enrich.ErrNoExtraction) {
		t.Fatalf("err %v", err)
	}
}

func TestNoSources(t *testing.T) {
	h := newHarness(t, graphmem.New())
	pensions := concept.Normalize(concept.Concept{Domain: "PENSIONS", Jurisdiction: h.jur, Kind: "STATE_PENSION", PrefLabel: "State Pension"})
	if _, err := h.writes.ResolveConcepts(context.Background(), []concept.Concept{pensions}, graph.ProvenanceOfficial); err != nil {
		t.Fatal(err)
	}
	res, err := h.newHandler(enrich.Config{}).Enrich(context.Background(), queue.EnrichmentRequested{ConceptID: pensions.ID, Domain: "PENSIONS", Kind: "STATE_PENSION", Jurisdiction: h.jur})
	if err != nil || res.Outcome != enrich.OutcomeNoSources || h.site.Requests() != 0 || len(h.llm.Requests()) != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	if st := h.node(pensions.ID).Properties["ingestion_status"]; st != enrich.StatusNoSources {
		t.Fatalf("status %v", st)
	}
}

func TestHandleSQSReportsFailuresOnly(t *testing.T) {
	h := newHarness(t, graphmem.New())
	body := func(job queue.EnrichmentRequested) string {
		env, err := queue.NewEnvelope(queue.TypeEnrichmentRequested, job)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(env)
		return string(raw)
	}
	unknown := queue.EnrichmentRequested{ConceptID: "TAX:" + h.jur + ":NOT_IN_GRAPH", Domain: "TAX", Kind: "NOT_IN_GRAPH", Jurisdiction: h.jur}
	ev := events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "ok-vat", Body: body(h.vat)},
		{MessageId: "poison", Body: "{not json"},
		{MessageId: "ok-benefit", Body: body(h.benefit)},
		{MessageId: "unknown-concept", Body: body(unknown)},
	}}
	handler := h.newHandler(enrich.Config{})
	resp, err := handler.HandleSQS(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, f := range resp.BatchItemFailures {
		failed = append(failed, f.ItemIdentifier)
	}
	slices.Sort(failed)
	if !slices.Equal(failed, []string{"poison", "unknown-concept"}) {
		t.Fatalf("failed %v", failed)
	}
	h.assertGraph(h.site.ExpectedVAT(h.vat.ConceptID, h.jur))
	h.assertGraph(h.site.ExpectedBenefit(h.benefit.ConceptID))
	if st := handler.Stats(); st.Jobs != 3 || st.ByOutcome[enrich.OutcomeEnriched] != 2 || st.Timings[enrich.PhaseLLM] <= 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestHandleEnvelopeRejectsInvalidPayload(t *testing.T) {
	h := newHarness(t, graphmem.New())
	env := queue.Envelope{Type: queue.TypeEnrichmentRequested, Version: 1, ID: "x", Payload: json.RawMessage(`{"domain":"TAX"}`)}
	if err := h.newHandler(enrich.Config{}).HandleEnvelope(context.Background(), env); !errors.Is(err, queue.ErrInvalidPayload) {
		t.Fatalf("err %v", err)
	}
}

// Every job writes one EMF record, dimensioned by its outcome, with its
// counts and the time of each phase.
func TestEachJobEmitsOneMetricsRecord(t *testing.T) {
	h := newHarness(t, graphmem.New())
	hd := h.newHandler(enrich.Config{})
	if _, err := hd.Enrich(context.Background(), h.benefit); err != nil {
		t.Fatal(err)
	}
	h.llm.Enqueue(llmtest.TextScript("I cannot help with that."))
	_, _ = hd.Enrich(context.Background(), h.vat)

	recs := h.metrics.Records(t)
	if len(recs) != 2 {
		t.Fatalf("%d records, want one per job", len(recs))
	}
	if recs[0].Value("Outcome") != "enriched" || recs[0].Value("EnrichFactsKept") != 3.0 || recs[0].Value("EnrichmentJobs") != 1.0 {
		t.Errorf("enriched job record: %v", recs[0].Root)
	}
	if recs[1].Value("Outcome") != "failed" {
		t.Errorf("failed job record: %v", recs[1].Root)
	}
	if got := strings.Join(recs[0].Dimensions[0], ","); got != "Function,Outcome" {
		t.Errorf("dimensions %s", got)
	}
	for _, name := range []string{"EnrichGraphReadTime", "EnrichFetchTime", "EnrichExtractTime", "EnrichModelTime", "EnrichGraphWriteTime", "EnrichJobTime"} {
		if recs[0].Units[name] != "Milliseconds" {
			t.Errorf("phase time %s missing or not in milliseconds: %v", name, recs[0].Units)
		}
	}
}
