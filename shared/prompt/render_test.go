package prompt

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/template"
	"time"
)

// The renderer must print exactly what text/template printed for the same
// template and data; text/template is used here, in tests, as the oracle.

func textTemplate(t testing.TB, name, src string) *template.Template {
	t.Helper()
	tt, err := template.New(name).Funcs(template.FuncMap{"join": strings.Join}).Option("missingkey=error").Parse(src)
	if err != nil {
		t.Fatalf("text/template cannot parse %s: %v", name, err)
	}
	return tt
}

// sameAsTextTemplate renders src with data both ways and reports a
// difference in output, or an error on one side only.
func sameAsTextTemplate(t *testing.T, name, src string, data any) {
	t.Helper()
	want := textTemplate(t, name, src)
	got, err := parseTemplate(name, src)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var wantOut, gotOut strings.Builder
	wantErr := want.Execute(&wantOut, data)
	gotErr := got.execute(&gotOut, reflect.ValueOf(data))
	switch {
	case (wantErr == nil) != (gotErr == nil):
		t.Errorf("%s with %T: error %v, text/template's %v", name, data, gotErr, wantErr)
	case wantErr == nil && gotOut.String() != wantOut.String():
		t.Errorf("%s with %T:\n got %q\nwant %q", name, data, gotOut.String(), wantOut.String())
	}
}

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

func TestRendererMatchesTextTemplateOnTheEmbeddedSheet(t *testing.T) {
	sub, err := fs.Sub(embeddedSheets, embeddedDir)
	if err != nil {
		t.Fatal(err)
	}
	names, err := fs.Glob(sub, "*.tmpl")
	if err != nil || len(names) != len(systemSections)+len(turnSections)+len(messageSections) {
		t.Fatalf("sheet files %v, %v", names, err)
	}
	messages := messageData()
	for _, name := range names {
		raw, err := fs.ReadFile(sub, name)
		if err != nil {
			t.Fatal(err)
		}
		section := sheetFile.FindStringSubmatch(name)[2]
		data := messages[section]
		if data == nil {
			for _, d := range sheetData() {
				data = append(data, d)
			}
		}
		for _, d := range data {
			sameAsTextTemplate(t, name, string(raw), d)
		}
	}
}

type probe struct {
	Name, Empty string
	N, Zero     int
	F           float64
	U           uint8
	B           bool
	List        []string
	NoList      []string
	Codes       codes
	Items       []probeItem
	Ptr, NilPtr *probeItem
	Map         map[string]string
	IntMap      map[int]string
	Any, NilAny any
	AnyList     any
	When        time.Time
	Stringer    label
	PtrStringer ptrLabel
	Nested      struct {
		Inner string
		Deep  []probeItem
	}
	embedded
	hidden string
}

type embedded struct{ Promoted string }

type probeItem struct {
	Label string
	Tags  []string
}

type codes []string

type label string

func (l label) String() string { return "label:" + string(l) }

type ptrLabel struct{ V string }

func (l *ptrLabel) String() string { return "ptr:" + l.V }

func fullProbe() *probe {
	p := &probe{Name: "Ada <&> \"x\"", N: 42, F: 1.5, U: 7, B: true,
		List: []string{"IE", "UK", "a, b"}, Codes: codes{"x", "y"},
		Items: []probeItem{{Label: "one", Tags: []string{"t1", "t2"}}, {Label: "two"}, {Label: "", Tags: []string{""}}},
		Ptr:   &probeItem{Label: "pointed"}, Map: map[string]string{"key": "value", "b": "2", "a": "1"},
		IntMap: map[int]string{10: "ten", -1: "minus one", 2: "two"}, Any: 3, AnyList: []string{"p", "q"},
		When: time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC), Stringer: "s", PtrStringer: ptrLabel{V: "v"},
		embedded: embedded{Promoted: "promoted"}, hidden: "h"}
	p.Nested.Inner = "inner"
	p.Nested.Deep = []probeItem{{Label: "deep", Tags: []string{"d"}}}
	return p
}

// renderCases are small templates covering each construct and every place a
// trim marker can stand.
var renderCases = []string{
	"", "plain text", "  \n\t  ", "}} { } {{`{{`}} -}}", "ünïcode – <&> \"quotes\" 'single'",
	"{{.Name}}", "{{ .Name }}", "{{.N}} {{.Zero}} {{.F}} {{.U}} {{.B}}", "{{.Nested.Inner}}", "{{.Ptr.Label}}",
	"{{.Ptr}}", "{{.NilPtr}}", "{{.Map.key}}", "{{.Map}}", "{{.Any}}", "{{.NilAny}}", "{{.AnyList}}", "{{.List}}",
	"{{.NoList}}", "{{.When}}", "{{.Stringer}}", "{{.PtrStringer}}", "{{.Nested}}", "{{.Promoted}}", "{{.Items}}",
	`{{"a \"quoted\"\tstring"}}`, "{{`raw\nstring`}}", "{{.Map.missing}}", "{{.hidden}}",
	// if, else if, else, over every kind of truth
	"{{if .Name}}yes{{end}}", "{{if .Empty}}yes{{else}}no{{end}}", "{{if .Empty}}a{{else if .Zero}}b{{else if .N}}c{{else}}d{{end}}",
	"{{if .Zero}}a{{else if .Empty}}b{{end}}", "{{if .F}}f{{end}}{{if .U}}u{{end}}{{if .B}}b{{end}}",
	"{{if .List}}l{{end}}{{if .NoList}}n{{end}}{{if .Map}}m{{end}}{{if .Ptr}}p{{end}}{{if .NilPtr}}np{{end}}",
	"{{if .Any}}a{{end}}{{if .NilAny}}na{{end}}{{if .When}}w{{end}}{{if .Nested}}s{{end}}{{if .Items}}i{{end}}",
	"{{if .}}dot{{end}}", `{{if ""}}e{{else}}not e{{end}}`, `{{if "x"}}x{{end}}`,
	// with
	"{{with .Name}}[{{.}}]{{end}}", "{{with .Empty}}x{{else}}y{{.Name}}{{end}}", "{{with .Ptr}}{{.Label}}{{end}}",
	"{{with .Empty}}a{{else with .Name}}b{{.}}{{end}}", "{{with .Empty}}a{{else with .Zero}}b{{else}}c{{end}}",
	"{{with .Nested}}{{.Inner}}{{range .Deep}}{{.Label}}{{end}}{{end}}", "{{with .NilAny}}x{{else}}none{{end}}",
	// range
	"{{range .List}}<{{.}}>{{end}}", "{{range .NoList}}x{{else}}none{{end}}", "{{range .Items}}{{.Label}}:{{range .Tags}} {{.}}{{else}} -{{end}};{{end}}",
	"{{range .Map}}{{.}},{{end}}", "{{range .IntMap}}{{.}},{{end}}", "{{range .AnyList}}{{.}}{{end}}", "{{range .Codes}}{{.}}{{end}}",
	"{{range .NilPtr}}x{{else}}y{{end}}", "{{range .Nested.Deep}}{{range .Tags}}{{.}}{{end}}{{end}}",
	"{{range .List}}{{if .}}[{{.}}]{{else}}empty{{end}}{{end}}",
	// join
	`{{join .List ", "}}`, `{{join .NoList "-"}}`, `{{join .Codes "/"}}`, `{{join .List .Name}}`, "{{join .List `\n`}}",
	`{{with .List}}{{join . "+"}}{{end}}`, `{{if join .NoList ""}}x{{else}}y{{end}}`, `{{join .AnyList ""}}`,
	`{{join .Name ","}}`, `{{join .List .N}}`,
	// comments
	"a{{/* c */}}b", "a {{- /* c */ -}} b", "a{{/* multi\nline */}}b", "a {{- /* c */}} b", "a {{/* c */ -}} b",
	// trim markers
	"a  {{- .Name}}", "{{.Name -}}  \n b", "a \n\t{{- .Name -}}\r\n b", "x {{- if .B -}} y {{- else -}} z {{- end -}} w",
	"{{- .Name}}", "{{.Name -}}", "{{.Name -}}   {{- .Name}}", "a{{- .Name}}", "a {{-\n.Name\n-}} b", "{{.Name  -}} x",
	"a {{- .Name}} {{- .Name -}} b", "\n\n{{- range .List}}\n- {{.}}\n{{- end}}\n\n", "{{range .List -}}\n  {{.}}\n{{- end}}",
	"{{if .Empty -}} a {{- else -}} \n b \n {{- end}}", "text {{- if .NoList}} x {{- end -}} \n more",
	"{{.Name -}}}", "a -}} b {{- .Name}}", // not trim markers
}

func TestRendererMatchesTextTemplate(t *testing.T) {
	for i, src := range renderCases {
		name := "case" + strconv.Itoa(i) + ".tmpl"
		for _, data := range []any{fullProbe(), *fullProbe(), probe{}, &probe{}} {
			sameAsTextTemplate(t, name, src, data)
		}
	}
}

func TestRendererRejectsWhatItDoesNotSupport(t *testing.T) {
	unsupported := []string{
		"{{$x := .}}", "{{.Name | printf}}", "{{len .List}}", `{{define "x"}}{{end}}`, `{{template "x"}}`,
		`{{block "x" .}}{{end}}`, `{{printf "%d" 3}}`, "{{3}}", "{{(.Name)}}", "{{.Name.}}", "{{range $i, $e := .List}}{{end}}",
		"{{range .List}}{{break}}{{end}}", "{{nil}}", "{{true}}", "{{.Name .Name}}", "{{-3}}", "{{$.Name}}",
		"{{if .B}}{{else range .List}}{{end}}", "{{range .List}}{{else if .B}}{{end}}", "{{if .B}}{{end .B}}",
	}
	for _, action := range unsupported {
		src := "first line\nsecond {{.Name}}\nthird " + action + "\n"
		_, err := parseTemplate("20_jurisdiction.tmpl", src)
		if err == nil {
			t.Errorf("%s parsed", action)
			continue
		}
		if !strings.HasPrefix(err.Error(), "20_jurisdiction.tmpl:3: ") || !strings.Contains(err.Error(), "unsupported action") ||
			!strings.Contains(err.Error(), "prompt sheets support {{.}}") {
			t.Errorf("%s: error %q does not say where and what is supported", action, err)
		}
	}
	malformed := map[string]string{
		"{{join .List}}": "join takes a list and a separator", "{{else}}": "unexpected {{else}}", "{{end}}": "unexpected {{end}}",
		"{{if .B}}": "unexpected end of file: {{if .B}} on line 3 has no {{end}}", "{{if}}{{end}}": "missing value", "{{}}": "missing value",
		"{{ /* c */ }}": "unsupported action", "{{/* c": "unclosed comment", "{{/* c */ x}}": "comment ends before closing delimiter",
		"{{.Name": "unclosed action", `{{"open}}`: "unterminated quoted string", "{{`open}}": "unterminated raw quoted string",
		"{{if .B}}{{else}}{{else}}{{end}}": "unexpected {{else}}: expected {{end}}", `{{"\q"}}`: "invalid syntax",
		"{{if .B}\n{{end}}": `unexpected "}" in "{{if .B}": an action ends with "}}"`, "{{.Name | x\n": `unsupported action "{{.Name | x"`,
	}
	for action, want := range malformed {
		_, err := parseTemplate("20_jurisdiction.tmpl", "first line\nsecond\nthird "+action)
		if err == nil || !strings.HasPrefix(err.Error(), "20_jurisdiction.tmpl:3: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want 20_jurisdiction.tmpl:3: ...%s", action, err, want)
		}
	}
}

// A block left open is found at the end of the file; the error names both
// lines.
func TestRendererNamesAnUnclosedBlock(t *testing.T) {
	_, err := parseTemplate("30_profile.tmpl", "one\n{{with .Name}}\n{{range .List}}{{end}}\nlast\n")
	want := "30_profile.tmpl:5: unexpected end of file: {{with .Name}} on line 2 has no {{end}}"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
}

// A field that does not exist, a method that is not listed, an unexported
// field and a missing map key fail when executed, with file and line.
func TestRendererFailsOnMissingFields(t *testing.T) {
	cases := map[string]string{
		"{{.Persona}}":                            "can't evaluate field Persona in type *prompt.probe",
		"{{.When.Year}}":                          "can't evaluate field Year in type time.Time",
		"{{.hidden}}":                             "hidden is an unexported field of struct type *prompt.probe",
		"{{.Map.nope}}":                           `map has no entry for key "nope"`,
		"{{range .Items}}{{.Lable}}{{end}}":       "can't evaluate field Lable in type prompt.probeItem",
		"{{.NilPtr.Label}}":                       "nil pointer evaluating *prompt.probeItem.Label",
		"{{.NilPtr.Nope}}":                        "can't evaluate field Nope in type *prompt.probeItem",
		"{{.NilAny.Label}}":                       "nil pointer evaluating interface {}.Label",
		`{{join .Name ","}}`:                      "wrong type for value; expected []string; got string",
		"{{range .N}}{{end}}":                     "range can't iterate over 42",
		"{{with .Nested}}{{.Deep.Label}}{{end}}":  "can't evaluate field Label in type []prompt.probeItem",
		"{{if .B}}{{else}}{{.Persona}}{{end}}x\n": "", // not taken: no error
	}
	for src, want := range cases {
		tmpl, err := parseTemplate("30_profile.tmpl", "line one\n"+src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		var b strings.Builder
		err = tmpl.execute(&b, reflect.ValueOf(fullProbe()))
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", src, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), "30_profile.tmpl:2: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want 30_profile.tmpl:2: ...%s", src, err, want)
		}
	}
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

// text/template looks methods up by name through reflection, which keeps
// every exported method of every type in the chat binary: the package must
// not link it, nor look methods up itself.
func TestPromptLinksNoTemplatePackageAndLooksUpNoMethods(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range file.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "text/template" || p == "html/template" {
				t.Errorf("%s imports %s", name, p)
			}
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && (sel.Sel.Name == "MethodByName" || sel.Sel.Name == "Method") {
				t.Errorf("%s: %s looks a method up by reflection", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
	if checked < 4 {
		t.Fatalf("only %d files checked", checked)
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
	b.Run("renderer", func(b *testing.B) {
		s := DefaultSheet()
		b.ReportAllocs()
		for b.Loop() {
			if out, err := s.System(d); err != nil || len(out) != len(s.order) {
				b.Fatalf("rendered %d sections, %v", len(out), err)
			}
		}
	})
	// text/template rendering the same sections, as the sheet did before.
	b.Run("text-template", func(b *testing.B) {
		s := DefaultSheet()
		templates := make([]*template.Template, len(s.order))
		for i, section := range s.order {
			name := s.templates[section].name
			raw, err := fs.ReadFile(embeddedSheets, embeddedDir+"/"+name)
			if err != nil {
				b.Fatal(err)
			}
			templates[i] = textTemplate(b, name, string(raw))
		}
		b.ReportAllocs()
		for b.Loop() {
			var out []Rendered
			for i, tt := range templates {
				var w strings.Builder
				if err := tt.Execute(&w, d); err != nil {
					b.Fatal(err)
				}
				if text := strings.TrimSpace(w.String()); text != "" {
					out = append(out, Rendered{Name: s.order[i], Text: text})
				}
			}
			if len(out) != len(s.order) {
				b.Fatalf("rendered %d sections", len(out))
			}
		}
	})
}
