// Package prompt renders the prompt from a sheet: template files, one per
// section, whose file names give the order of the system prompt. The sheet embedded in the binary is the default; PROMPT_SHEETS_DIR
// replaces it with a directory of the same shape, so the wording changes
// without a code change. Empty sections are left out.
//
// Sheets are Go text/template files with one function besides the
// built-in ones, {{join .List ", "}}. Each is parsed and executed with
// sample data at load, so a syntax error or a field the data lacks fails
// at start with the file and line.
//
// The package also counts tokens (tokens.go), so the engine can fit the
// system prompt, supplied context and history into one budget.
package prompt

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"regintel/shared/pii"
)

// Section names. A request is laid out stable first, changing last, so
// the model provider can serve its prefix from cache:
//
//   - instructions: the sheet's fixed sections (the same for every turn of
//     every conversation of the sheet), then the profile sections, which
//     render only codes (jurisdictions, the persona code);
//   - messages: a persona written as free text (user_profile), supplied
//     context, the history, each the same across a conversation's turns;
//   - then what changes every turn: the conversation's concepts and the
//     graph's facts (conversation_context, graph_facts) in one user
//     message, and the question.
//
// The instructions hold only our text and values we render ourselves.
// Everything else reaches the model fenced, as data, in user messages.
const (
	SectionBaseRole            = "base_role"
	SectionJurisdiction        = "jurisdiction"
	SectionProfile             = "profile"
	SectionDisclaimer          = "disclaimer"
	SectionConversationContext = "conversation_context"
	SectionGraphFacts          = "graph_facts"
	SectionConceptCapture      = "concept_capture"
	SectionRequestContext      = "request_context"
	SectionUserProfile         = "user_profile"
	SectionSuppliedContext     = "supplied_context"
	SectionClientHistory       = "client_history"
	SectionHistory             = "history"
	SectionQuestion            = "question"
)

// fixedSections open the instructions, in the sheet's order.
var fixedSections = []string{SectionBaseRole, SectionDisclaimer, SectionConceptCapture, SectionRequestContext}

// profileSections close the instructions, in the sheet's order.
var profileSections = []string{SectionJurisdiction, SectionProfile}

// systemSections are the sections of the instructions; every sheet must
// have each of them (a sheet can render one empty to leave it out).
var systemSections = slices.Concat(fixedSections, profileSections)

// turnSections render, fenced, the user message that carries what changes
// every turn; they see Data like the system sections.
var turnSections = []string{SectionConversationContext, SectionGraphFacts}

// messageSections render one message each.
var messageSections = []string{SectionUserProfile, SectionSuppliedContext, SectionClientHistory, SectionHistory, SectionQuestion}

// Data is what the system and turn sections of a sheet see.
type Data struct {
	AgentID       string
	Jurisdictions []string
	// PersonaType is a persona code (conversation.PersonaCodes), never free
	// text: a persona the user wrote goes in Input.PersonaNote, as data.
	PersonaType string
	// Concepts already in scope in this conversation.
	Concepts []ConceptLine
	// Facts are the rules graph's facts for the concepts in scope.
	Facts []FactGroup
	// AsOf is the date the question is about: the facts are those valid
	// on it. The turn's graph_facts message names it, so the instructions
	// stay the same whatever the date.
	AsOf AsOfLine
	// Supplied is unused by system sections; kept for sheets that predate
	// the supplied_context message.
	Supplied []SuppliedLine
	// CaptureConcepts is true when the capture_concepts tool is offered.
	CaptureConcepts bool
	// RequestContext is true when the request_context tool is offered.
	RequestContext bool
}

// AsOfLine is the date a turn's facts are for and where it came from: the
// request (Requested), the question's words (Phrase), else today.
type AsOfLine struct {
	Date      string // ISO date; "" says nothing about the date
	Requested bool
	Phrase    string
	End       string // ISO date: the last end of a range the question names
}

// ConceptLine is one concept of the conversation context.
type ConceptLine struct {
	ID           string
	Label        string
	Jurisdiction string
	Definition   string
}

// SuppliedLine is one supplied context item as rendered.
type SuppliedLine struct {
	id      string
	Key     string
	Kind    string
	Content string
	// Truncated is true when Content was cut to fit the budget.
	Truncated bool
}

// MessageData is what the history and question sections see.
type MessageData struct {
	Role string // "user" or "assistant"
	Text string
}

// SuppliedData is what the supplied_context section sees; each item's
// content is already fenced.
type SuppliedData struct {
	Items []SuppliedLine
}

// ClientHistoryData is what the client_history section sees: the client's
// own history of a stateless request, oldest first, fenced.
type ClientHistoryData struct {
	Messages []MessageData
}

// FactGroup is the facts of one concept.
type FactGroup struct {
	ConceptID string
	Concept   string // its label
	Facts     []FactLine
}

// FactLine is one fact of the rules graph, with where it comes from.
type FactLine struct {
	NodeID       string
	Kind         string // Rate, Threshold, Timeline, Guidance...
	Label        string
	Value        string // its values, rendered ("percent: 23; band: standard")
	Sources      []string
	LastVerified time.Time // zero when unknown
	// Valid time: ISO dates ("" for an undated fact, ValidTo "" while in
	// force) and the fact's status.
	ValidFrom, ValidTo, Status string
	// NotYetInForce marks an announced value that starts after today.
	NotYetInForce bool
	// MayBeOutdated marks a value in force on the as-of date that was last
	// checked at its source long before it: the line says so.
	MayBeOutdated bool
	// text is Text, rendered once a fit takes the line (see withText).
	text string
}

// Text is the fact as one prompt line; its length is what the budget counts.
func (f FactLine) Text() string {
	if f.text != "" {
		return f.text
	}
	return f.render()
}

// withText copies groups with each line's text rendered: a fit reads a
// line's text several times (to count it, to choose, to render).
func withText(groups []FactGroup) []FactGroup {
	out := make([]FactGroup, len(groups))
	for i, g := range groups {
		out[i] = g
		out[i].Facts = make([]FactLine, len(g.Facts))
		for j, f := range g.Facts {
			f.text = f.render()
			out[i].Facts[j] = f
		}
	}
	return out
}

func (f FactLine) render() string {
	var b strings.Builder
	size := 80 + len(f.Kind) + len(f.Label) + len(f.Value) + len(f.NodeID)
	for _, s := range f.Sources {
		size += len(s) + 2
	}
	b.Grow(size)
	b.WriteString("- ")
	b.WriteString(f.Kind)
	b.WriteString(": ")
	b.WriteString(f.Label)
	if f.Value != "" {
		b.WriteString(" (")
		b.WriteString(f.Value)
		b.WriteString(")")
	}
	if len(f.Sources) > 0 {
		b.WriteString("; source: ")
		b.WriteString(strings.Join(f.Sources, ", "))
	}
	switch {
	case f.LastVerified.IsZero():
	case f.MayBeOutdated:
		b.WriteString("; last checked at its source on ")
		b.WriteString(f.LastVerified.UTC().Format("2006-01-02"))
		b.WriteString("; may have changed since")
	default:
		b.WriteString("; last verified ")
		b.WriteString(f.LastVerified.UTC().Format("2006-01-02"))
	}
	b.WriteString(" [")
	b.WriteString(f.NodeID)
	b.WriteString("]")
	return b.String()
}

// fenceTags are the tags that fence data that is not ours, as they read
// in the normal form (see pii.Normalize: entities, percent-escapes, tag
// characters and full-width forms already read as ASCII, "_" as a space),
// written with any of the angle brackets that look alike.
var fenceTags = regexp.MustCompile(`(?i)(?:[<\x{2039}\x{3008}\x{27E8}]|&lt;)\s*/?\s*(user[_ ]profile|supplied[_ ]context|client[_ ]history|conversation[_ ]context|graph[_ ]facts)\b\s*/?\s*(?:[>\x{203A}\x{3009}\x{27E9}]|&gt;)?`)

// fence neutralises our fence tags inside untrusted text, so the text
// cannot close its fence and speak outside it. It reads the text in the
// one normal form the personal-data detectors read, and rewrites the
// original text; invisible characters (tag characters, bidi controls)
// are dropped.
func fence(text string) string {
	text = pii.StripInvisible(text)
	if !strings.ContainsAny(text, "<&%") && isASCII(text) {
		return text
	}
	n := pii.NormalizeSpans(text)
	locs := fenceTags.FindAllStringSubmatchIndex(n.Text, -1)
	if locs == nil {
		return text
	}
	var b strings.Builder
	last := 0
	for _, loc := range locs {
		start, end := n.Original(loc[0], loc[1])
		if start < last {
			continue
		}
		b.WriteString(text[last:start])
		b.WriteString("[" + strings.ReplaceAll(n.Text[loc[2]:loc[3]], " ", "_") + "]")
		last = end
	}
	b.WriteString(text[last:])
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func fenced(items []SuppliedLine) []SuppliedLine {
	out := make([]SuppliedLine, len(items))
	for i, it := range items {
		it.Key, it.Kind, it.Content = fence(it.Key), fence(it.Kind), fence(it.Content)
		out[i] = it
	}
	return out
}

// fencedTurnData is d with every text that came from the graph or from an
// earlier turn's capture neutralised; codes and dates are ours.
func fencedTurnData(d Data) Data {
	concepts := make([]ConceptLine, len(d.Concepts))
	for i, c := range d.Concepts {
		concepts[i] = ConceptLine{ID: fence(c.ID), Label: fence(c.Label), Jurisdiction: fence(c.Jurisdiction), Definition: fence(c.Definition)}
	}
	groups := make([]FactGroup, len(d.Facts))
	for i, g := range d.Facts {
		facts := make([]FactLine, len(g.Facts))
		for j, f := range g.Facts {
			facts[j] = fencedFact(f)
		}
		groups[i] = FactGroup{ConceptID: fence(g.ConceptID), Concept: fence(g.Concept), Facts: facts}
	}
	d.Concepts, d.Facts = concepts, groups
	d.AsOf.Phrase = fence(d.AsOf.Phrase)
	return d
}

func fencedFact(f FactLine) FactLine {
	in := f
	f.NodeID, f.Kind, f.Label, f.Value = fence(f.NodeID), fence(f.Kind), fence(f.Label), fence(f.Value)
	changed := f.NodeID != in.NodeID || f.Kind != in.Kind || f.Label != in.Label || f.Value != in.Value
	sources := make([]string, len(f.Sources))
	for i, s := range f.Sources {
		sources[i] = fence(s)
		changed = changed || sources[i] != s
	}
	f.Sources = sources
	if changed {
		f.text = "" // rendered again from the fenced fields
	}
	return f
}
