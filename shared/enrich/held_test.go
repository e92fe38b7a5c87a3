package enrich_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"regintel/shared/concept"
	"regintel/shared/enrich"
	"regintel/shared/enrich/enrichtest"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/queue"
)

// heldJob is the job the resolver queues for a captured kind outside the
// vocabulary: no node exists for it.
func heldJob(domain, jur, kind string) queue.EnrichmentRequested {
	c := concept.Normalize(concept.Concept{Domain: domain, Jurisdiction: jur, Kind: kind, PrefLabel: kind})
	return queue.EnrichmentRequested{ConceptID: c.ID, Domain: c.Domain, Jurisdiction: c.Jurisdiction, Kind: c.Kind, Held: true}
}

// captureLogs sends the default logger (the handler's) to a buffer.
func captureLogs(t *testing.T) *bytes.Buffer {
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return &buf
}

// TestHeldConceptNamedOnAnOfficialPageGetsANode: a held kind the VAT page
// names becomes a shared node under the page's wording, official, with
// the page's facts; the held id itself never becomes a node.
func TestHeldConceptNamedOnAnOfficialPageGetsANode(t *testing.T) {
	h := newHarness(t, graphmem.New())
	logs := captureLogs(t)
	job := heldJob("TAX", h.jur, "VAT CHARGES ON GOODS")
	res, err := h.newHandler(enrich.Config{}).Enrich(context.Background(), job)
	if err != nil || res.Outcome != enrich.OutcomeEnriched {
		t.Fatalf("%+v, %v", res, err)
	}
	official := "TAX:" + h.jur + ":VALUE_ADDED_TAX"
	if res.ConceptID != official {
		t.Fatalf("node %s, want %s: the id from the page's name", res.ConceptID, official)
	}
	n := h.node(official)
	if n.PrefLabel != enrichtest.ConfirmedVATName || n.Properties["provenance"] != "official" {
		t.Fatalf("node %+v, want it official as %q", n, enrichtest.ConfirmedVATName)
	}
	h.node(enrich.RateID(official, "Standard rate") + ":UNDATED")
	if nodes, _ := h.store.GetNodesByIDs(context.Background(), []string{job.ConceptID}); len(nodes) != 0 {
		t.Fatalf("the held id became a node: %+v", nodes)
	}
	if strings.Contains(logs.String(), "VAT_CHARGES_ON_GOODS") {
		t.Errorf("the held kind reached the log: %s", logs.String())
	}
}

// TestHeldConceptNoPageNamesMakesNoNode: the benefit page names no concept,
// so a held kind read against it makes no node and writes no fact, and the
// log holds no trace of the kind.
func TestHeldConceptNoPageNamesMakesNoNode(t *testing.T) {
	h := newHarness(t, graphmem.New())
	logs := captureLogs(t)
	for _, kind := range []string{"MURPHY FAMILY TRUST", "JOHN_MURPHY_CLAIM", "JANE AT EXAMPLE DOT COM", "12 MAIN STREET"} {
		job := heldJob("SOCIAL_WELFARE", h.jur, kind)
		res, err := h.newHandler(enrich.Config{}).Enrich(context.Background(), job)
		if err != nil || res.Outcome != enrich.OutcomeNotNamed {
			t.Fatalf("%s: %+v, %v", kind, res, err)
		}
		ids := append([]string{job.ConceptID}, h.site.ExpectedBenefit(job.ConceptID).NodeIDs...)
		if nodes, _ := h.store.GetNodesByIDs(context.Background(), ids); len(nodes) != 0 {
			t.Fatalf("%s: a held concept no page names made nodes: %+v", kind, nodes)
		}
	}
	for _, word := range []string{"MURPHY", "EXAMPLE", "MAIN_STREET"} {
		if strings.Contains(strings.ToUpper(logs.String()), word) {
			t.Errorf("a log line holds %q: %s", word, logs.String())
		}
	}
}
