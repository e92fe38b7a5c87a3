// Package prompt builds the system prompt from aspects: small functions that
// each render one section (jurisdiction, agent, profile, disclaimer,
// conversation context, concept capture). The builder composes the sections
// in a fixed order and leaves out the empty ones.
package prompt

import (
	"context"
	"fmt"
	"strings"

	"regintel/shared/graph"
)

// Section names, in the default order of the system prompt.
const (
	SectionBaseRole            = "base_role"
	SectionJurisdiction        = "jurisdiction"
	SectionProfile             = "profile"
	SectionDisclaimer          = "disclaimer"
	SectionConversationContext = "conversation_context"
	SectionSuppliedContext     = "supplied_context"
	SectionConceptCapture      = "concept_capture"
)

// DefaultOrder is the order sections appear in when no sheet says otherwise.
var DefaultOrder = []string{
	SectionBaseRole, SectionJurisdiction, SectionProfile, SectionDisclaimer,
	SectionConversationContext, SectionSuppliedContext, SectionConceptCapture,
}

// Builder composes named sections into one system prompt (seed 003's
// PromptBuilder, with aspects as its parts).
type Builder struct {
	order    []string
	sections map[string]string
}

// NewBuilder returns a builder that emits sections in order (DefaultOrder
// when nil). Sections not named in order are appended after, in the order
// they were added.
func NewBuilder(order []string) *Builder {
	if order == nil {
		order = DefaultOrder
	}
	return &Builder{order: order, sections: map[string]string{}}
}

// With sets a section; blank text leaves it out.
func (b *Builder) With(name, text string) *Builder {
	text = strings.TrimSpace(text)
	if text == "" {
		delete(b.sections, name)
		return b
	}
	b.sections[name] = text
	return b
}

// Has reports whether a section is set.
func (b *Builder) Has(name string) bool { _, ok := b.sections[name]; return ok }

// Sections returns the set sections in output order.
func (b *Builder) Sections() []Section {
	var out []Section
	used := map[string]bool{}
	for _, name := range b.order {
		if text, ok := b.sections[name]; ok {
			out = append(out, Section{Name: name, Text: text})
			used[name] = true
		}
	}
	for name, text := range b.sections {
		if !used[name] {
			out = append(out, Section{Name: name, Text: text})
		}
	}
	return out
}

// Section is one rendered part of the prompt.
type Section struct {
	Name string
	Text string
}

// Build joins the sections as paragraphs.
func (b *Builder) Build() string {
	parts := make([]string, 0, len(b.sections))
	for _, s := range b.Sections() {
		parts = append(parts, s.Text)
	}
	return strings.Join(parts, "\n\n")
}

// BaseRole describes the assistant and its agent.
func BaseRole(agentID string) string {
	return fmt.Sprintf("You are a regulatory-intelligence assistant (agent %s) for tax, social welfare, pensions, "+
		"vehicle registration and related rules across Ireland, the UK and the EU. Answer clearly and precisely, "+
		"say when a rule depends on facts you do not have, and cite the rule or official source where you can.", agentID)
}

// Jurisdiction tells the model which jurisdictions are in play.
func Jurisdiction(codes []string) string {
	if len(codes) == 0 {
		return "No jurisdiction was given: if the answer depends on one, say which you assume (default Ireland, IE)."
	}
	return fmt.Sprintf("The user's jurisdictions: %s. Prefer rules of these jurisdictions and say so when another applies.", strings.Join(codes, ", "))
}

// Profile describes the user's persona, when known.
func Profile(personaType string) string {
	if strings.TrimSpace(personaType) == "" {
		return ""
	}
	return fmt.Sprintf("The user describes themselves as: %s. Tailor examples to that situation.", personaType)
}

// Disclaimer keeps the model from presenting research as advice.
func Disclaimer() string {
	return "This is a research tool, not legal, tax or financial advice: do not present conclusions as advice, " +
		"and suggest a qualified adviser or the relevant authority for decisions."
}

// ConceptCapture carries the instructions of seed 001 §4.3.
func ConceptCapture() string {
	return "In addition to answering the user, you must call the `capture_concepts` tool once per turn with any important " +
		"tax, welfare, pension, or regulatory concepts you detect.\n" +
		"Prefer a small number of important concepts (usually 1–5 per turn). Do not list every noun phrase.\n" +
		"Use short, human-readable `prefLabel` values and reasonable `definition` texts."
}

// ConversationContext renders the concepts already in scope (seed 000 §5.3).
// It returns "" when there is nothing to say, and the graph's error when the
// nodes cannot be read (the caller leaves the section out and warns).
func ConversationContext(ctx context.Context, reader graph.Reader, activeNodeIDs []string) (string, error) {
	if len(activeNodeIDs) == 0 {
		return "", nil
	}
	nodes, err := reader.GetNodesByIDs(ctx, activeNodeIDs)
	if err != nil {
		return "", err
	}
	if len(nodes) == 0 {
		return "", nil
	}
	byID := make(map[string]graph.Node, len(nodes))
	for _, n := range nodes {
		byID[n.ID] = n
	}
	lines := []string{"In this conversation, the following regulatory concepts are already in scope:"}
	for _, id := range activeNodeIDs {
		n, ok := byID[id]
		if !ok {
			continue
		}
		label := n.PrefLabel
		if label == "" {
			label = n.ID
		}
		tag := label
		if n.Jurisdiction != "" {
			tag = fmt.Sprintf("%s (%s)", label, n.Jurisdiction)
		}
		lines = append(lines, fmt.Sprintf("- %s – %s", tag, n.Definition))
	}
	lines = append(lines, "Where relevant, prefer grounded explanations that reuse these concepts.")
	return strings.Join(lines, "\n"), nil
}
