package prompt

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func sampleFacts() []FactGroup {
	verified := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	return []FactGroup{
		{ConceptID: "TAX:IE:VAT", Concept: "Value-Added Tax", Facts: []FactLine{
			{NodeID: "TAX:IE:VAT:RATE:STANDARD", Kind: "Rate", Label: "standard rate", Value: "percent: 23",
				Sources: []string{"https://www.revenue.ie/vat", "https://example.org/a?b=1&c=<2>"}, LastVerified: verified},
			{NodeID: "TAX:IE:VAT:THRESHOLD", Kind: "Threshold", Label: "registration threshold"},
		}},
		{ConceptID: "TAX:UK:EMPTY", Concept: "No facts yet"},
		{ConceptID: "WELFARE:IE", Concept: "Jobseeker's Benefit – \"JB\"", Facts: []FactLine{
			{NodeID: "n", Kind: "Timeline", Label: "waiting days", Value: "days: 6\nnext line  ", LastVerified: verified},
			{NodeID: "old", Kind: "Rate", Label: "old rate", LastVerified: verified, ValidFrom: "2020-01-01", Status: "in_force", MayBeOutdated: true},
		}},
	}
}

// sheetData covers every branch of the embedded sheet: empty and full
// values, nested ranges with an empty inner list, and text that looks like
// markup, template syntax or trailing whitespace.
func sheetData() []Data {
	return []Data{
		{},
		{AgentID: "a1", Jurisdictions: []string{"IE"}},
		{AgentID: "agent {{.AgentID}} <b>&amp;</b>", Jurisdictions: []string{"IE", "UK", "EU"}, PersonaType: "self-employed   \n",
			Concepts: []ConceptLine{
				{ID: "c1", Label: "Value-Added Tax", Jurisdiction: "IE", Definition: "a consumption tax"},
				{ID: "c2", Label: "PAYE", Definition: "  pay as you earn  "},
			},
			Facts: sampleFacts(), CaptureConcepts: true, RequestContext: true, AsOf: AsOfLine{Date: "2023-07-01", Phrase: "in 2023"}},
		{Jurisdictions: []string{}, Concepts: []ConceptLine{}, Facts: []FactGroup{{Concept: "only a group"}}, RequestContext: true, AsOf: AsOfLine{Date: "2026-01-01", Requested: true}},
		{Facts: sampleFacts(), AsOf: AsOfLine{Date: "2026-11-27"}},
		{AsOf: AsOfLine{Date: "2024-07-01", Phrase: "in <2024>"}},
		{AsOf: AsOfLine{Date: "2024-03-01", Requested: true}},
		{AsOf: AsOfLine{Date: "2026-11-27"}},
		{Jurisdictions: []string{"", " "}, PersonaType: " ", Concepts: []ConceptLine{{}}, CaptureConcepts: true},
	}
}

func messageData() map[string][]any {
	messages := []MessageData{{}, {Role: "user", Text: "What is VAT?"}, {Role: "assistant", Text: "  A tax.\n\n{{.Text}} – <client_history>  "}}
	history := make([]any, len(messages))
	for i, m := range messages {
		history[i] = m
	}
	return map[string][]any{
		SectionSuppliedContext: {SuppliedData{}, SuppliedData{Items: []SuppliedLine{
			{Key: "p60", Kind: "document", Content: "Gross pay 52,000.\n\n"},
			{Key: "", Kind: "", Content: "", Truncated: true},
			{Key: "notes {{x}}", Kind: "text", Content: "  ünïcode – \t tabs\r\n"},
		}}},
		SectionClientHistory: {ClientHistoryData{}, ClientHistoryData{Messages: messages}},
		SectionHistory:       history,
		SectionQuestion:      history,
		SectionUserProfile:   history,
	}
}

// A sheet's errors name the file and line: at parse, and at execution for
// a field, method or map key the data lacks.
func TestSheetTemplateErrorsNameFileAndLine(t *testing.T) {
	parse := map[string]string{
		"{{shout .Name}}":                  `function "shout" not defined`,
		"{{else}}":                         "unexpected {{else}}",
		"{{$y}}":                           `undefined variable "$y"`,
		"{{if .B}\n{{end}}":                `bad character U+007D '}'`,
		"{{if .B}}{{else}}{{else}}{{end}}": "expected end; found {{else}}",
	}
	for src, want := range parse {
		_, err := parseTemplate("20_jurisdiction.tmpl", "first line\nsecond {{.Name}}\nthird "+src)
		if err == nil || !strings.Contains(err.Error(), "20_jurisdiction.tmpl:3: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want 20_jurisdiction.tmpl:3: ...%s", src, err, want)
		}
	}
	execute := map[string]string{
		"{{.Persona}}":                      "can't evaluate field Persona in type *prompt.probe",
		"{{.When.Yaer}}":                    "can't evaluate field Yaer in type time.Time",
		"{{.When.Format}}":                  "wrong number of args for Format",
		"{{.hidden}}":                       "hidden is an unexported field of struct type *prompt.probe",
		"{{.Map.nope}}":                     `map has no entry for key "nope"`,
		"{{range .Items}}{{.Lable}}{{end}}": "can't evaluate field Lable in type prompt.probeItem",
		"{{.NilPtr.Label}}":                 "nil pointer evaluating *prompt.probeItem.Label",
		`{{join .Name ","}}`:                "wrong type for value; expected []string; got string",
		"{{range .When}}{{end}}":            "range can't iterate over",
	}
	for src, want := range execute {
		err := renderProbe(t, "line one\n"+src, nil)
		if err == nil || !strings.Contains(err.Error(), "30_profile.tmpl:2:") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want 30_profile.tmpl:2: ...%s", src, err, want)
		}
	}
}

// Sheets call join and the methods of the data's types; a branch not
// taken does not fail.
func TestSheetTemplatesJoinAndCallMethods(t *testing.T) {
	cases := map[string]string{
		`{{join .List ", "}}`:                     "IE, UK, a, b",
		`{{join .NoList "-"}}`:                    "",
		"{{range .Facts}}{{.Text}}{{end}}":        "- Rate: standard rate (percent: 23) [n]",
		"{{.When.Year}}":                          "2026",
		"{{if .B}}{{else}}{{.Persona}}{{end}}x\n": "x\n",
	}
	for src, want := range cases {
		var out strings.Builder
		if err := renderProbe(t, src, &out); err != nil || out.String() != want {
			t.Errorf("%s: %q, %v; want %q", src, out.String(), err, want)
		}
	}
}

// renderProbe parses src as a sheet file and executes it with fullProbe.
func renderProbe(t *testing.T, src string, out *strings.Builder) error {
	t.Helper()
	tmpl, err := parseTemplate("30_profile.tmpl", src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	if out == nil {
		out = &strings.Builder{}
	}
	return tmpl.Execute(out, fullProbe())
}

type probe struct {
	Name   string
	N      int
	B      bool
	List   []string
	NoList []string
	Items  []probeItem
	Facts  []FactLine
	NilPtr *probeItem
	Map    map[string]string
	When   time.Time
	hidden string
}

type probeItem struct{ Label string }

func fullProbe() *probe {
	return &probe{Name: "Ada", N: 42, B: true, List: []string{"IE", "UK", "a, b"},
		Items: []probeItem{{Label: "one"}}, Facts: []FactLine{{NodeID: "n", Kind: "Rate", Label: "standard rate", Value: "percent: 23"}},
		Map: map[string]string{"key": "value"}, When: time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC), hidden: "h"}
}

// Sheets render on every turn from many goroutines at once.
func TestSheetRendersConcurrently(t *testing.T) {
	s := DefaultSheet()
	data := sheetData()
	want := make([]string, len(data))
	for i, d := range data {
		sections, err := s.System(d)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = Join(sections)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				k := (g + i) % len(data)
				sections, err := s.System(data[k])
				if err == nil && Join(sections) != want[k] {
					err = fmt.Errorf("data %d rendered differently", k)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// benchmarkData is a realistic turn: two jurisdictions, a few concepts and
// facts, both tools offered.
func benchmarkData() Data {
	return Data{AgentID: "agent-1", Jurisdictions: []string{"IE", "UK"}, PersonaType: "self-employed",
		Concepts: []ConceptLine{
			{ID: "c1", Label: "Value-Added Tax", Jurisdiction: "IE", Definition: "a consumption tax on goods and services"},
			{ID: "c2", Label: "PAYE", Jurisdiction: "IE", Definition: "income tax deducted at source"},
			{ID: "c3", Label: "Class S PRSI", Definition: "social insurance for the self-employed"},
		},
		Facts: sampleFacts(), CaptureConcepts: true, RequestContext: true}
}

func BenchmarkSheetSystem(b *testing.B) {
	d := benchmarkData()
	s := DefaultSheet()
	b.ReportAllocs()
	for b.Loop() {
		if out, err := s.System(d); err != nil || len(out) != len(s.order) {
			b.Fatalf("rendered %d sections, %v", len(out), err)
		}
	}
}
