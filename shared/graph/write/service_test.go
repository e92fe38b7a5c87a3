package write

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"regintel/shared/concept"
	"regintel/shared/graph"
)

// fakeStore records every write call.
type fakeStore struct {
	mu       sync.Mutex
	calls    [][]concept.Concept
	generic  [][2]int
	failWith error
}

func (f *fakeStore) GetNodesByIDs(context.Context, []string) ([]graph.Node, error) { return nil, nil }
func (f *fakeStore) UpsertConcepts(_ context.Context, cs []concept.Concept, _ graph.Provenance, _ time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failWith != nil {
		return f.failWith
	}
	f.calls = append(f.calls, append([]concept.Concept(nil), cs...))
	return nil
}
func (f *fakeStore) HasUsefulDetail(context.Context, string, time.Time) (bool, error) {
	return false, nil
}
func (f *fakeStore) MarkEnrichmentRequested(context.Context, string, time.Time, time.Time) (bool, error) {
	return true, nil
}

func (f *fakeStore) ClearEnrichmentRequested(context.Context, string, time.Time) error { return nil }
func (f *fakeStore) WriteNodesAndEdges(_ context.Context, nodes []graph.NodeWrite, edges []graph.EdgeWrite, _ time.Time) error {
	f.generic = append(f.generic, [2]int{len(nodes), len(edges)})
	return nil
}

func vat() concept.Concept {
	return concept.Normalize(concept.Concept{Domain: "tax", Jurisdiction: "IE", Kind: "VAT", PrefLabel: "Value-Added Tax",
		AltLabels: []string{"VAT", "cáin bhreisluacha"}, Definition: "A consumption tax at 23% standard rate; €40,000 registration threshold for services.",
		SourceURLs: []string{"https://www.revenue.ie/en/vat/index.aspx"}})
}

func newTestService(store graph.ConceptStore) (*Service, *bytes.Buffer) {
	var logs bytes.Buffer
	// No time field: its digits could hold what a leak check looks for.
	noTime := func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}
	log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{ReplaceAttr: noTime}))
	return NewService(store, WithLogger(log)), &logs
}

func TestResolveConceptsWritesCleanOnesInOneCallAndRejectsPII(t *testing.T) {
	store := &fakeStore{}
	svc, logs := newTestService(store)
	vrt := concept.Normalize(concept.Concept{Domain: "vehicle reg", Jurisdiction: "IE", Kind: "VRT", PrefLabel: "Vehicle Registration Tax"})
	leaky := concept.Normalize(concept.Concept{Domain: "welfare", Jurisdiction: "IE", Kind: "Jobseekers Benefit",
		PrefLabel: "Jobseeker's Benefit", Definition: "Ask Mary at mary.murphy@example.ie or 087 123 4567"})

	res, err := svc.ResolveConcepts(context.Background(), []concept.Concept{vat(), leaky, vrt}, graph.ProvenanceOfficial)
	if err != nil {
		t.Fatal(err)
	}
	if len(store.calls) != 1 || len(store.calls[0]) != 2 {
		t.Fatalf("store calls = %v, want one call with two concepts", store.calls)
	}
	if strings.Join(res.Written, ",") != "TAX:IE:VAT,VEHICLE_REG:IE:VRT" {
		t.Fatalf("written = %v", res.Written)
	}
	if len(res.Rejected) != 1 {
		t.Fatalf("rejected = %v", res.Rejected)
	}
	rej := res.Rejected[0]
	if rej.ConceptID != "WELFARE:IE:JOBSEEKERS_BENEFIT" || rej.Reason != ReasonPIIValue || rej.Field != "definition" || rej.PIIKind != "EMAIL" {
		t.Fatalf("rejection = %+v", rej)
	}
	st := svc.Stats()
	if st.Rejected != 1 || st.Written != 2 || st.RejectedByReason[ReasonPIIValue] != 1 {
		t.Fatalf("stats = %+v", st)
	}
	out := logs.String()
	if !strings.Contains(out, `"event":"graph_write_rejected"`) || !strings.Contains(out, `"reason":"pii_value"`) ||
		!strings.Contains(out, `"concept_id":"WELFARE:IE:JOBSEEKERS_BENEFIT"`) {
		t.Fatalf("log line lacks the metric fields: %s", out)
	}
	if strings.Contains(out, "mary") || strings.Contains(out, "087") {
		t.Fatalf("log leaked the rejected value: %s", out)
	}
}

func TestGuardRejectsEachKindOfPersonalData(t *testing.T) {
	base := concept.Concept{Domain: "tax", Jurisdiction: "IE", Kind: "CGT", PrefLabel: "Capital Gains Tax"}
	cases := map[string]func(c *concept.Concept){
		"email":  func(c *concept.Concept) { c.Definition = "contact x.y@example.com" },
		"phone":  func(c *concept.Concept) { c.AltLabels = []string{"call +44 20 7946 0958"} },
		"iban":   func(c *concept.Concept) { c.Definition = "pay into IE29 AIBK 9311 5212 3456 78" },
		"card":   func(c *concept.Concept) { c.Definition = "card 4111 1111 1111 1111" },
		"ppsn":   func(c *concept.Concept) { c.Definition = "my PPSN 1234567T" },
		"nino":   func(c *concept.Concept) { c.PrefLabel = "CGT for AB 12 34 56 C" },
		"in id":  func(c *concept.Concept) { c.Kind = "1234567T" },
		"url":    func(c *concept.Concept) { c.SourceURLs = []string{"mailto:someone@example.com"} },
		"userin": func(c *concept.Concept) { c.SourceURLs = []string{"https://user:pw@example.com/x"} },
		"long":   func(c *concept.Concept) { c.Definition = strings.Repeat("chat text ", 300) },
	}
	g := NewGuard()
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			c := base
			mutate(&c)
			c = concept.Normalize(c)
			err := g.CheckConcept(c)
			var rej *Rejection
			if !errors.As(err, &rej) {
				t.Fatalf("CheckConcept accepted %s", name)
			}
			if name == "in id" && rej.ConceptID != "" {
				t.Fatalf("a PII-bearing id must be withheld, got %q", rej.ConceptID)
			}
			if strings.Contains(rej.Error(), "1234567T") || strings.Contains(rej.Error(), "@") {
				t.Fatalf("rejection message leaks the value: %s", rej.Error())
			}
		})
	}
	if err := g.CheckConcept(concept.Normalize(base)); err != nil {
		t.Fatalf("clean concept rejected: %v", err)
	}
}

func TestResolveRejectsNonCanonicalIncomingID(t *testing.T) {
	store := &fakeStore{}
	svc, _ := newTestService(store)
	c := vat()
	c.ID = "tax:ie:vat"
	res, err := svc.ResolveConcepts(context.Background(), []concept.Concept{c}, graph.ProvenanceOfficial)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rejected) != 1 || res.Rejected[0].Reason != ReasonIDMismatch || len(store.calls) != 0 {
		t.Fatalf("res = %+v calls = %d", res, len(store.calls))
	}
}

func TestResolveMergesDuplicateIDs(t *testing.T) {
	store := &fakeStore{}
	svc, _ := newTestService(store)
	a := vat()
	b := concept.Normalize(concept.Concept{Domain: "TAX", Jurisdiction: "ie", Kind: "vat", PrefLabel: "Irish VAT",
		SourceURLs: []string{"https://www.citizensinformation.ie/en/money-and-tax/tax/duties-and-vat/"}})
	res, err := svc.ResolveConcepts(context.Background(), []concept.Concept{a, b}, graph.ProvenanceOfficial)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Written) != 1 || len(store.calls[0]) != 1 {
		t.Fatalf("written %v, calls %v", res.Written, store.calls)
	}
	got := store.calls[0][0]
	if got.PrefLabel != "Value-Added Tax" || !contains(got.AltLabels, "Irish VAT") || len(got.SourceURLs) != 2 {
		t.Fatalf("merged = %+v", got)
	}
}

func TestResolveReturnsStoreErrors(t *testing.T) {
	store := &fakeStore{failWith: errors.New("connection refused")}
	svc, _ := newTestService(store)
	res, err := svc.ResolveConcepts(context.Background(), []concept.Concept{vat()}, graph.ProvenanceOfficial)
	if err == nil || len(res.Written) != 0 {
		t.Fatalf("res %+v err %v", res, err)
	}
}

func TestCheckNodeAndEdge(t *testing.T) {
	g := NewGuard()
	ok := graph.NodeWrite{Label: "Rate", ID: "RATE:IE:VAT_STANDARD", Props: map[string]any{"percent": 23.0, "pref_label": "Standard rate", "effective_from": "2021-03-01"}}
	if err := g.CheckNode(ok); err != nil {
		t.Fatalf("clean node rejected: %v", err)
	}
	bad := []graph.NodeWrite{
		{Label: "Person", ID: "P1"},
		{Label: "Rate", ID: "R1", Props: map[string]any{"user_id": "u-123"}},
		{Label: "Rate", ID: "R1", Props: map[string]any{"colour": "red"}},
		{Label: "Rate", ID: "R1", Props: map[string]any{"Percent`) DETACH DELETE n //": 1}},
		{Label: "Rate", ID: "R1", Props: map[string]any{"description": "ring 01 234 5678"}},
		{Label: "Rate", ID: "R1", Props: map[string]any{"description": map[string]any{"x": 1}}},
		{Label: "Rate", ID: "R1", Props: map[string]any{"id": "R2"}},
	}
	wantReasons := []Reason{ReasonLabelNotAllowed, ReasonSensitiveKey, ReasonPropertyNotAllowed, ReasonPropertyNotAllowed, ReasonPIIValue, ReasonUnsupportedValue, ReasonIDMismatch}
	for i, n := range bad {
		var rej *Rejection
		if err := g.CheckNode(n); !errors.As(err, &rej) || rej.Reason != wantReasons[i] {
			t.Errorf("CheckNode(%d) = %v, want %s", i, err, wantReasons[i])
		}
	}
	if err := g.CheckEdge(graph.EdgeWrite{FromID: "TAX:IE:VAT", Type: "HAS_RATE", ToID: "RATE:IE:VAT_STANDARD"}); err != nil {
		t.Fatalf("clean edge rejected: %v", err)
	}
	for i, e := range []graph.EdgeWrite{
		{FromID: "TAX:IE:VAT", Type: "KNOWS", ToID: "X"},
		{FromID: "TAX:IE:VAT", Type: "HAS_RATE", ToID: ""},
		{FromID: "TAX:IE:VAT", Type: "HAS_RATE", ToID: "X", Props: map[string]any{"email": "a@b.ie"}},
	} {
		if err := g.CheckEdge(e); err == nil {
			t.Errorf("CheckEdge(%d) accepted", i)
		}
	}
}

func TestWriteDropsEdgesOfRejectedNodes(t *testing.T) {
	store := &fakeStore{}
	svc, _ := newTestService(store)
	res, err := svc.Write(context.Background(),
		[]graph.NodeWrite{
			{Label: "Rate", ID: "RATE:IE:VAT_STANDARD", Props: map[string]any{"percent": 23}},
			{Label: "Rate", ID: "RATE:IE:BAD", Props: map[string]any{"description": "x@y.ie"}},
		},
		[]graph.EdgeWrite{
			{FromID: "TAX:IE:VAT", Type: "HAS_RATE", ToID: "RATE:IE:VAT_STANDARD"},
			{FromID: "TAX:IE:VAT", Type: "HAS_RATE", ToID: "RATE:IE:BAD"},
		})
	if err != nil {
		t.Fatal(err)
	}
	if len(store.generic) != 1 || store.generic[0] != [2]int{1, 1} || len(res.Rejected) != 2 {
		t.Fatalf("generic = %v res = %+v", store.generic, res)
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
