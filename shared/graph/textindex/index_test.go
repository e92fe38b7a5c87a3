package textindex_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"regintel/shared/concept"
	"regintel/shared/graph"
	graphmem "regintel/shared/graph/memory"
	"regintel/shared/graph/textindex"
)

var t0 = time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)

// fixture is a small graph in words of this test's own: a payroll levy
// known by an alias, a fuel duty whose facts name the fuels, a transfer tax
// whose definition names gifts, a welfare payment, two more taxes (so
// "tax" is a common word, as in the real graph) and a UK concept.
func fixture(t *testing.T) *graphmem.Store {
	t.Helper()
	s := graphmem.New()
	ctx := context.Background()
	official := []concept.Concept{
		{Domain: "TAX", Jurisdiction: "IE", Kind: "PAYROLL_LEVY", PrefLabel: "Payroll Levy", AltLabels: []string{"employer contribution"},
			Definition: "A levy on wages paid by each employer for its workers.", SourceURLs: []string{"https://www.revenue.ie/a"}},
		{Domain: "TAX", Jurisdiction: "IE", Kind: "FUEL_DUTY", PrefLabel: "Fuel Duty",
			Definition: "An excise tax charged per litre when fuel leaves a warehouse.", SourceURLs: []string{"https://www.revenue.ie/b"}},
		{Domain: "TAX", Jurisdiction: "IE", Kind: "TRANSFER_TAX", PrefLabel: "Capital Transfer Tax",
			Definition: "A tax on gifts and inheritances received above a lifetime threshold.", SourceURLs: []string{"https://www.revenue.ie/c"}},
		{Domain: "SOCIAL_WELFARE", Jurisdiction: "IE", Kind: "CARER_PAYMENT", PrefLabel: "Carer Payment",
			Definition: "A weekly payment to a person who looks after someone full time.", SourceURLs: []string{"https://www.gov.ie/d"}},
		{Domain: "TAX", Jurisdiction: "UK", Kind: "FUEL_DUTY", PrefLabel: "Fuel Duty",
			Definition: "The UK tax on road fuel.", SourceURLs: []string{"https://www.gov.uk/e"}},
		{Domain: "TAX", Jurisdiction: "IE", Kind: "INCOME_TAX", PrefLabel: "Income Tax",
			Definition: "A tax on what a person earns in a year.", SourceURLs: []string{"https://www.revenue.ie/g"}},
		{Domain: "TAX", Jurisdiction: "IE", Kind: "PROPERTY_TAX", PrefLabel: "Property Tax",
			Definition: "An annual tax on residential property.", SourceURLs: []string{"https://www.revenue.ie/h"}},
	}
	for i := range official {
		official[i] = concept.Normalize(official[i])
	}
	if err := s.UpsertConcepts(ctx, official, graph.ProvenanceOfficial, t0); err != nil {
		t.Fatal(err)
	}
	captured := concept.Normalize(concept.Concept{Domain: "TAX", Jurisdiction: "IE", Kind: "SECRET_LEVY", PrefLabel: "Secret Levy on Kerosene"})
	if err := s.UpsertConcepts(ctx, []concept.Concept{captured}, graph.ProvenanceCapture, t0); err != nil {
		t.Fatal(err)
	}
	facts := []graph.NodeWrite{
		{Label: "Rate", ID: "TAX:IE:FUEL_DUTY:RATE:ROAD", Props: map[string]any{"pref_label": "Duty on road diesel", "amount": 0.5, "applies_to": "auto_fuels"}},
		{Label: "Rate", ID: "TAX:IE:FUEL_DUTY:RATE:HOME", Props: map[string]any{"pref_label": "Duty on marked gas oil for home heating", "amount": 0.1, "applies_to": "heating_oil"}},
		{Label: "Rate", ID: "TAX:IE:TRANSFER_TAX:RATE:MAIN", Props: map[string]any{"pref_label": "Transfer tax rate", "percent": 33.0}},
	}
	edges := []graph.EdgeWrite{
		{FromID: "TAX:IE:FUEL_DUTY", Type: "HAS_RATE", ToID: "TAX:IE:FUEL_DUTY:RATE:ROAD"},
		{FromID: "TAX:IE:FUEL_DUTY", Type: "HAS_RATE", ToID: "TAX:IE:FUEL_DUTY:RATE:HOME"},
		{FromID: "TAX:IE:TRANSFER_TAX", Type: "HAS_RATE", ToID: "TAX:IE:TRANSFER_TAX:RATE:MAIN"},
	}
	if err := s.WriteNodesAndEdges(ctx, graph.MarkOfficial(facts), edges, t0); err != nil {
		t.Fatal(err)
	}
	return s
}

func indexOf(t *testing.T, s *graphmem.Store) *textindex.Index {
	t.Helper()
	x := textindex.New()
	if err := x.Refresh(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return x
}

func TestMatchReadsPeoplesWords(t *testing.T) {
	x := indexOf(t, fixture(t))
	for question, want := range map[string]string{
		// inflected and possessive forms of an alias
		"How much do employers' contributions add to a payslip?": "TAX:IE:PAYROLL_LEVY",
		// part of a label
		"is there a levy on payroll?": "TAX:IE:PAYROLL_LEVY",
		// words of a definition only
		"Do I owe anything on inheritances from my uncle?": "TAX:IE:TRANSFER_TAX",
		// words of a fact's label only
		"what is charged on marked gas oil": "TAX:IE:FUEL_DUTY",
		// a scope word people use for an official category
		"how much on a tank of kerosene": "TAX:IE:FUEL_DUTY",
		// plural of a label word
		"carer payments for someone looking after a parent": "SOCIAL_WELFARE:IE:CARER_PAYMENT",
	} {
		got := x.Match(question, []string{"IE"})
		if len(got) == 0 || got[0] != want {
			t.Errorf("Match(%q) = %v, want %s first", question, got, want)
		}
	}
}

func TestMatchLeavesOutWhatIsNotNamed(t *testing.T) {
	x := indexOf(t, fixture(t))
	for _, question := range []string{
		"What is the tax?",                     // a word every tax shares says nothing
		"when is the deadline for the return?", // nothing indexed
		"the levy on kerosene they keep quiet", // kerosene reaches fuel duty, never the captured concept
	} {
		for _, id := range x.Match(question, []string{"IE"}) {
			if id == "TAX:IE:SECRET_LEVY" || question != "the levy on kerosene they keep quiet" {
				t.Errorf("Match(%q) found %s", question, id)
			}
		}
	}
	if got := x.Match("duty on road diesel", []string{"UK"}); slices.Contains(got, "TAX:IE:FUEL_DUTY") || !slices.Contains(got, "TAX:UK:FUEL_DUTY") {
		t.Errorf("a UK question matched %v, want the UK duty only", got)
	}
}

func TestRefreshFollowsTheChangeFeed(t *testing.T) {
	s := fixture(t)
	x := indexOf(t, s)
	const question = "What is the sugar tax on fizzy drinks?"
	if got := x.Match(question, []string{"IE"}); len(got) != 0 {
		t.Fatalf("matched %v before the concept existed", got)
	}
	sugar := concept.Normalize(concept.Concept{Domain: "TAX", Jurisdiction: "IE", Kind: "SUGAR_TAX", PrefLabel: "Sugar Sweetened Drinks Tax",
		Definition: "An excise on drinks with added sugar.", SourceURLs: []string{"https://www.revenue.ie/f"}})
	if err := s.UpsertConcepts(context.Background(), []concept.Concept{sugar}, graph.ProvenanceOfficial, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := x.Match(question, []string{"IE"}); len(got) != 0 {
		t.Fatalf("matched %v before a refresh", got)
	}
	if err := x.Refresh(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if got := x.Match(question, []string{"IE"}); len(got) == 0 || got[0] != sugar.ID {
		t.Errorf("after a refresh matched %v, want %s", got, sugar.ID)
	}
}
