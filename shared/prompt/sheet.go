package prompt

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"
)

//go:embed sheets/default/*.tmpl
var embeddedSheets embed.FS

const embeddedDir = "sheets/default"

// Sheet is a parsed, validated prompt sheet.
type Sheet struct {
	source string
	// order lists the system sections in output order: the fixed ones, then
	// the profile ones, each group in the sheet's order.
	order []string
	// turnOrder lists the turn sections in the sheet's order.
	turnOrder []string
	templates map[string]*template.Template
	// fingerprint identifies the sheet's text: two sheets with the same
	// files have the same fingerprint.
	fingerprint string
}

// sheetFile is "NN_section.tmpl": NN orders the system prompt.
var sheetFile = regexp.MustCompile(`^(\d+)_([a-z_]+)\.tmpl$`)

// DefaultSheet returns the embedded sheet. It panics if the embedded sheet
// is broken, which its tests rule out.
func DefaultSheet() *Sheet {
	s, err := LoadSheet("")
	if err != nil {
		panic(err)
	}
	return s
}

// LoadSheet parses the sheet in dir, or the embedded sheet when dir is "".
// Every section must have exactly one file and no file may name an unknown
// section; each template is parsed and executed once with sample data, so a
// bad sheet fails here (at start) with the file and line, not mid-turn.
func LoadSheet(dir string) (*Sheet, error) {
	var fsys fs.FS
	source := dir
	if dir == "" {
		sub, err := fs.Sub(embeddedSheets, embeddedDir)
		if err != nil {
			return nil, err
		}
		fsys, source = sub, "embedded:"+embeddedDir
	} else {
		info, err := os.Stat(dir)
		if err != nil {
			return nil, fmt.Errorf("prompt sheet %s: %w", dir, err)
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("prompt sheet %s: not a directory", dir)
		}
		fsys = os.DirFS(dir)
	}
	s, err := parseSheet(fsys, source)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// sheetFuncs are the functions sheets may call besides text/template's own.
var sheetFuncs = template.FuncMap{"join": strings.Join}

// parseTemplate parses one sheet file. The template is named after its
// file, so parse and execution errors read "20_jurisdiction.tmpl:3: ...";
// a field or map key the data lacks is an error, not "<no value>".
func parseTemplate(name, src string) (*template.Template, error) {
	return template.New(name).Funcs(sheetFuncs).Option("missingkey=error").Parse(src)
}

type sheetEntry struct {
	position int
	section  string
	file     string
}

// sectionOrder lists the sections of each group in turn, each group in the
// sheet's order: the fixed sections open the instructions whatever their
// numbers, so the instructions' opening is the same for every conversation.
func sectionOrder(entries []sheetEntry, groups ...[]string) []string {
	var out []string
	for _, group := range groups {
		for _, e := range entries {
			if slices.Contains(group, e.section) {
				out = append(out, e.section)
			}
		}
	}
	return out
}

func parseSheet(fsys fs.FS, source string) (*Sheet, error) {
	names, err := fs.Glob(fsys, "*.tmpl")
	if err != nil {
		return nil, fmt.Errorf("prompt sheet %s: %w", source, err)
	}
	known := slices.Concat(systemSections, turnSections, messageSections)
	var entries []sheetEntry
	seen := map[string]string{}
	for _, name := range names {
		m := sheetFile.FindStringSubmatch(name)
		if m == nil {
			return nil, fmt.Errorf("prompt sheet %s: file %s: name it NN_section.tmpl (NN orders the sections)", source, name)
		}
		section := m[2]
		if !slices.Contains(known, section) {
			return nil, fmt.Errorf("prompt sheet %s: file %s: unknown section %q (known: %s)", source, name, section, strings.Join(known, ", "))
		}
		if other, dup := seen[section]; dup {
			return nil, fmt.Errorf("prompt sheet %s: files %s and %s both define section %q", source, other, name, section)
		}
		seen[section] = name
		position, _ := strconv.Atoi(m[1])
		entries = append(entries, sheetEntry{position: position, section: section, file: name})
	}
	var missing []string
	for _, section := range known {
		if _, ok := seen[section]; !ok {
			missing = append(missing, section)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("prompt sheet %s: missing sections %s (add NN_<section>.tmpl; an empty template leaves a section out)", source, strings.Join(missing, ", "))
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].position < entries[j].position })

	s := &Sheet{source: source, templates: map[string]*template.Template{}}
	digest := sha256.New()
	for _, e := range entries {
		raw, err := fs.ReadFile(fsys, e.file)
		if err != nil {
			return nil, fmt.Errorf("prompt sheet %s: %w", source, err)
		}
		fmt.Fprintf(digest, "%s\x00%d\x00", e.file, len(raw))
		digest.Write(raw)
		t, err := parseTemplate(e.file, string(raw))
		if err != nil {
			return nil, fmt.Errorf("prompt sheet %s: %w", source, err)
		}
		s.templates[e.section] = t
	}
	s.fingerprint = hex.EncodeToString(digest.Sum(nil))
	s.order, s.turnOrder = sectionOrder(entries, fixedSections, profileSections), sectionOrder(entries, turnSections)
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("prompt sheet %s: %w", source, err)
	}
	return s, nil
}

// validate executes every template with data that takes every branch, so
// a misspelt field fails at load time with its file and line.
func (s *Sheet) validate() error {
	sample := Data{
		AgentID: "agent", Jurisdictions: []string{"IE"}, PersonaType: "persona",
		Concepts: []ConceptLine{{ID: "TAX:IE:VAT", Label: "VAT", Jurisdiction: "IE", Definition: "d"}},
		Facts: []FactGroup{{ConceptID: "TAX:IE:VAT", Concept: "VAT", Facts: []FactLine{{NodeID: "n", Kind: "Rate", Label: "l",
			Value: "percent: 23", Sources: []string{"https://example.org"}, LastVerified: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}}},
		CaptureConcepts: true, RequestContext: true, AsOf: AsOfLine{Date: "2026-01-01", Phrase: "in 2026"},
	}
	requested := sample
	requested.AsOf = AsOfLine{Date: "2026-01-01", Requested: true}
	messages := map[string]any{
		SectionUserProfile:     MessageData{Role: "user", Text: "t"},
		SectionSuppliedContext: SuppliedData{Items: []SuppliedLine{{Key: "k", Kind: "text", Content: "c", Truncated: true}}},
		SectionClientHistory:   ClientHistoryData{Messages: []MessageData{{Role: "user", Text: "t"}}},
		SectionHistory:         MessageData{Role: "user", Text: "t"},
		SectionQuestion:        MessageData{Role: "user", Text: "t"},
	}
	var errs []error
	for _, data := range []Data{sample, requested, {AsOf: requested.AsOf}, {}} {
		for _, section := range slices.Concat(s.order, s.turnOrder) {
			if _, err := s.Render(section, data); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, section := range messageSections {
		if _, err := s.execute(section, messages[section]); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// Source names where the sheet came from (a directory, or the embedded one).
func (s *Sheet) Source() string { return s.source }

// Order lists the system prompt's sections in output order.
func (s *Sheet) Order() []string { return slices.Clone(s.order) }

// Fingerprint identifies the sheet's text (a SHA-256 of its files, hex).
func (s *Sheet) Fingerprint() string { return s.fingerprint }

// Render renders one system or turn section, trimmed; "" means leave it out.
func (s *Sheet) Render(section string, d Data) (string, error) {
	return s.execute(section, d)
}

// RenderMessage renders the history or question section for one message.
func (s *Sheet) RenderMessage(section string, m MessageData) (string, error) {
	if section != SectionHistory && section != SectionQuestion {
		return "", fmt.Errorf("section %q does not render messages", section)
	}
	return s.execute(section, m)
}

func (s *Sheet) execute(section string, data any) (string, error) {
	t, ok := s.templates[section]
	if !ok {
		return "", fmt.Errorf("no section %q", section)
	}
	buf := renderBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledRender {
			renderBuffers.Put(buf)
		}
	}()
	if err := t.Execute(buf, data); err != nil {
		return "", err
	}
	return string(bytes.TrimSpace(buf.Bytes())), nil
}

// renderBuffers hold a section while it renders: a template writes in many
// small pieces, and a buffer kept from an earlier turn has room for them.
var renderBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledRender bounds the buffers kept, so one huge turn does not pin
// its memory.
const maxPooledRender = 256 << 10

// Rendered is one rendered system section.
type Rendered struct {
	Name string
	Text string
}

// System renders the system sections in order, leaving out empty ones.
func (s *Sheet) System(d Data) ([]Rendered, error) {
	out := make([]Rendered, 0, len(s.order))
	for _, section := range s.order {
		text, err := s.execute(section, d)
		if err != nil {
			return nil, err
		}
		if text != "" {
			out = append(out, Rendered{Name: section, Text: text})
		}
	}
	return out, nil
}

// turnSection renders one turn section, fenced.
func (s *Sheet) turnSection(section string, d Data) (string, error) {
	return s.execute(section, fencedTurnData(d))
}

// TurnContext renders the turn sections, in the sheet's order and fenced,
// leaving out empty ones: the user message of what changes every turn.
func (s *Sheet) TurnContext(d Data) ([]Rendered, error) {
	data := fencedTurnData(d)
	var out []Rendered
	for _, section := range s.turnOrder {
		text, err := s.execute(section, data)
		if err != nil {
			return nil, err
		}
		if text != "" {
			out = append(out, Rendered{Name: section, Text: text})
		}
	}
	return out, nil
}

// Join joins rendered sections as paragraphs: the system prompt.
func Join(sections []Rendered) string {
	parts := make([]string, len(sections))
	for i, r := range sections {
		parts[i] = r.Text
	}
	return strings.Join(parts, "\n\n")
}
