package main

import (
	"fmt"
	"strings"

	"regintel/shared/concept"
	"regintel/shared/graph/seeddata"
)

// benchConcept is one concept a question of the bench names: each turn
// grounds a different concept's facts.
type benchConcept struct {
	kind, label, question string
}

// benchConcepts are ten Irish tax and welfare concepts, each with six facts.
var benchConcepts = []benchConcept{
	{"RENT_TAX_CREDIT", "Rent Tax Credit", "Can I claim the Rent Tax Credit for my flat in Galway?"},
	{"HOME_CARER_CREDIT", "Home Carer Tax Credit", "Who qualifies for the Home Carer Tax Credit?"},
	{"SMALL_BENEFIT_EXEMPTION", "Small Benefit Exemption", "How does the Small Benefit Exemption work for vouchers from my employer?"},
	{"HELP_TO_BUY", "Help to Buy", "How much can I get under Help to Buy for a new build?"},
	{"STAMP_DUTY", "Stamp Duty", "What Stamp Duty applies when I buy a second-hand house?"},
	{"LOCAL_PROPERTY_TAX", "Local Property Tax", "How is Local Property Tax calculated on my home?"},
	{"CAPITAL_ACQUISITIONS_TAX", "Capital Acquisitions Tax", "Do I pay Capital Acquisitions Tax on a gift from my parents?"},
	{"DIVIDEND_WITHHOLDING_TAX", "Dividend Withholding Tax", "Is Dividend Withholding Tax deducted from dividends I receive?"},
	{"DEPOSIT_INTEREST_RETENTION_TAX", "Deposit Interest Retention Tax", "What rate of Deposit Interest Retention Tax applies to my savings?"},
	{"BENEFIT_IN_KIND", "Benefit in Kind", "How is Benefit in Kind charged on a company car?"},
}

// factKinds are the six facts each concept has: a kind, an edge, values.
var factKinds = []struct {
	label, edge, name string
	props             func(i int) map[string]any
}{
	{"Rate", "HAS_RATE", "standard rate", func(i int) map[string]any { return map[string]any{"percent": 20 + i, "band": "standard"} }},
	{"Rate", "HAS_RATE", "reduced rate", func(i int) map[string]any { return map[string]any{"percent": 10 + i, "band": "reduced"} }},
	{"Threshold", "HAS_THRESHOLD", "annual limit", func(i int) map[string]any {
		return map[string]any{"amountEur": 1000 * (i + 1), "period": "year", "appliesTo": "each individual"}
	}},
	{"Threshold", "HAS_THRESHOLD", "income limit", func(i int) map[string]any {
		return map[string]any{"amountEur": 40000 + 500*i, "assessment": "joint or single", "period": "year"}
	}},
	{"Timeline", "HAS_TIMELINE", "claim deadline", func(i int) map[string]any {
		return map[string]any{"years": 4, "from": "end of the tax year", "note": fmt.Sprintf("claims through myAccount, case %d", i)}
	}},
	{"Timeline", "HAS_TIMELINE", "payment date", func(i int) map[string]any {
		return map[string]any{"day": 31, "month": "October", "filing": "Form 11 or the PAYE review", "index": i}
	}},
}

// benchDataset is the graph the bench grounds its questions in.
func benchDataset() seeddata.Dataset {
	var ds seeddata.Dataset
	for i, c := range benchConcepts {
		id := concept.CanonicalID("TAX", "IE", c.kind)
		url := "https://www.revenue.ie/en/" + strings.ToLower(strings.ReplaceAll(c.label, " ", "-")) + "/index.aspx"
		ds.Concepts = append(ds.Concepts, concept.Concept{ID: id, Domain: "TAX", Kind: c.kind, Jurisdiction: "IE", PrefLabel: c.label,
			Definition: "The " + c.label + " as Revenue administers it: who qualifies, the rates and limits that apply, and how and when to claim.",
			SourceURLs: []string{url}})
		for j, k := range factKinds {
			factID := fmt.Sprintf("%s:%s:%d", id, strings.ToUpper(k.label), j)
			ds.Nodes = append(ds.Nodes, seeddata.DetailNode{ID: factID, Label: k.label, PrefLabel: c.label + " " + k.name,
				Jurisdiction: "IE", Properties: k.props(i)})
			ds.Edges = append(ds.Edges, seeddata.Edge{From: id, Type: k.edge, To: factID})
		}
	}
	return ds
}
