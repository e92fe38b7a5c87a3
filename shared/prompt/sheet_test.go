package prompt_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"regintel/shared/prompt"
)

// copyDefaultSheet writes the embedded sheet's files to a new directory.
func copyDefaultSheet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("sheets", "default")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestDefaultSheetRendersSeedWording(t *testing.T) {
	s := prompt.DefaultSheet()
	want := []string{"base_role", "disclaimer", "concept_capture", "request_context", "jurisdiction", "profile"}
	if !slices.Equal(s.Order(), want) {
		t.Fatalf("order = %v", s.Order())
	}
	data := prompt.Data{
		AgentID: "a1", Jurisdictions: []string{"IE", "UK"},
		Concepts: []prompt.ConceptLine{{Label: "Value-Added Tax", Jurisdiction: "IE", Definition: "a consumption tax"}},
		Facts: []prompt.FactGroup{{ConceptID: "TAX:IE:VAT", Concept: "Value-Added Tax", Facts: []prompt.FactLine{{
			NodeID: "TAX:IE:VAT:RATE:STANDARD", Kind: "Rate", Label: "Irish VAT standard rate", Value: "percent: 23",
			Sources: []string{"https://www.revenue.ie/en/vat/vat-rates/index.aspx"}, LastVerified: time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)}}}},
		CaptureConcepts: true,
	}
	sections, err := s.System(data)
	if err != nil {
		t.Fatal(err)
	}
	system := prompt.Join(sections)
	for _, text := range []string{
		"you must call the `capture_concepts` tool once per turn",
		"usually 1–5 per turn",
		"The user's jurisdictions: IE, UK.",
	} {
		if !strings.Contains(system, text) {
			t.Errorf("system prompt lacks %q:\n%s", text, system)
		}
	}
	if strings.Contains(system, "Value-Added Tax") || strings.Contains(system, "revenue.ie") {
		t.Errorf("graph text in the system prompt:\n%s", system)
	}
	// Empty sections are left out: no profile, no request_context.
	for _, r := range sections {
		if r.Name == "profile" || r.Name == "request_context" {
			t.Errorf("empty section %s rendered: %q", r.Name, r.Text)
		}
	}
	turn, err := s.TurnContext(data)
	if err != nil || len(turn) != 2 {
		t.Fatalf("turn context = %+v, %v", turn, err)
	}
	for _, text := range []string{
		"<conversation_context>\n- Value-Added Tax (IE) – a consumption tax\n</conversation_context>",
		"<graph_facts>\nValue-Added Tax:\n- Rate: Irish VAT standard rate (percent: 23); source: https://www.revenue.ie/en/vat/vat-rates/index.aspx; last verified 2026-01-05 [TAX:IE:VAT:RATE:STANDARD]\n</graph_facts>",
	} {
		if !strings.Contains(prompt.Join(turn), text) {
			t.Errorf("turn context lacks %q:\n%s", text, prompt.Join(turn))
		}
	}
	if q, err := s.RenderMessage(prompt.SectionQuestion, prompt.MessageData{Role: "user", Text: "What is VAT?"}); err != nil || q != "What is VAT?" {
		t.Fatalf("question = %q, %v", q, err)
	}
}

func TestSheetDirectoryOverridesOrderAndWording(t *testing.T) {
	dir := copyDefaultSheet(t)
	// Move the disclaimer first and reword it.
	if err := os.Remove(filepath.Join(dir, "20_disclaimer.tmpl")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "05_disclaimer.tmpl"), []byte("Not advice."), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := prompt.LoadSheet(dir)
	if err != nil {
		t.Fatal(err)
	}
	sections, err := s.System(prompt.Data{AgentID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if sections[0].Name != "disclaimer" || sections[0].Text != "Not advice." {
		t.Fatalf("first section = %+v", sections[0])
	}
	// A profile section numbered first still follows the fixed sections:
	// the instructions' opening is the same for every conversation.
	if err := os.Rename(filepath.Join(dir, "50_jurisdiction.tmpl"), filepath.Join(dir, "01_jurisdiction.tmpl")); err != nil {
		t.Fatal(err)
	}
	if s, err = prompt.LoadSheet(dir); err != nil {
		t.Fatal(err)
	}
	if order := s.Order(); order[0] != "disclaimer" || order[len(order)-2] != "jurisdiction" {
		t.Fatalf("order = %v", order)
	}
}

func TestBadSheetFailsWithFileAndLine(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(dir string) error
		wants []string
	}{
		{"parse error", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "50_jurisdiction.tmpl"), []byte("line one\nline two {{if .Jurisdictions}\n"), 0o644)
		}, []string{"50_jurisdiction.tmpl:2:"}},
		{"unknown field", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "55_profile.tmpl"), []byte("Profile:\n{{.Persona}}\n"), 0o644)
		}, []string{"55_profile.tmpl:2:", "Persona"}},
		{"unknown field in a nested range", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "80_graph_facts.tmpl"), []byte("Facts:\n{{range .Facts}}\n{{range .Facts}}{{.Sauce}}{{end}}{{end}}\n"), 0o644)
		}, []string{"80_graph_facts.tmpl:3:", "can't evaluate field Sauce in type prompt.FactLine"}},
		{"method called without its argument", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "80_graph_facts.tmpl"), []byte("{{range .Facts}}{{range .Facts}}\n{{.LastVerified.Format}}{{end}}{{end}}"), 0o644)
		}, []string{"80_graph_facts.tmpl:2:", "wrong number of args for Format"}},
		{"unexported field", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "65_supplied_context.tmpl"), []byte("{{range .Items}}{{.id}}{{end}}"), 0o644)
		}, []string{"65_supplied_context.tmpl:1:", "id is an unexported field"}},
		{"undefined variable", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "50_jurisdiction.tmpl"), []byte("{{- if .Jurisdictions -}}\nThe user's jurisdictions:\n{{$x}}\n{{- end -}}\n"), 0o644)
		}, []string{`50_jurisdiction.tmpl:3: undefined variable "$x"`}},
		{"unknown function", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "55_profile.tmpl"), []byte("\n{{.PersonaType | shout}}"), 0o644)
		}, []string{`55_profile.tmpl:2: function "shout" not defined`}},
		{"template not defined", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "10_base_role.tmpl"), []byte(`{{template "role"}}`), 0o644)
		}, []string{`10_base_role.tmpl:1:`, `template "role" not defined`}},
		{"missing section", func(dir string) error {
			return os.Remove(filepath.Join(dir, "95_question.tmpl"))
		}, []string{"missing sections question"}},
		{"unknown section", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "55_suplied_context.tmpl"), []byte("x"), 0o644)
		}, []string{"55_suplied_context.tmpl", `unknown section "suplied_context"`}},
		{"duplicate section", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "99_history.tmpl"), []byte("x"), 0o644)
		}, []string{"75_history.tmpl", "99_history.tmpl"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDefaultSheet(t)
			if err := tc.edit(dir); err != nil {
				t.Fatal(err)
			}
			_, err := prompt.LoadSheet(dir)
			if err == nil {
				t.Fatal("bad sheet loaded")
			}
			for _, want := range append(tc.wants, dir) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

func TestAbsentSheetDirectoryFails(t *testing.T) {
	if _, err := prompt.LoadSheet(filepath.Join(t.TempDir(), "absent")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent directory: %v", err)
	}
}
