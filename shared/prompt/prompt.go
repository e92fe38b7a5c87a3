// Package prompt renders the prompt from a sheet: template files, one per
// section, whose file names give the order of the system prompt (seed 004
// §4.1.5). The sheet embedded in the binary is the default; PROMPT_SHEETS_DIR
// replaces it with a directory of the same shape, so the wording changes
// without a code change. Empty sections are left out.
//
// The package also counts tokens (tokens.go), so the engine can fit the
// system prompt, supplied context and history into one budget.
package prompt

import (
	"context"

	"regintel/shared/graph"
)

// Section names. The system prompt is made of the sections up to and
// including request_context, in the sheet's order; history and question
// render the messages sent after it.
const (
	SectionBaseRole            = "base_role"
	SectionJurisdiction        = "jurisdiction"
	SectionProfile             = "profile"
	SectionDisclaimer          = "disclaimer"
	SectionConversationContext = "conversation_context"
	SectionSuppliedContext     = "supplied_context"
	SectionConceptCapture      = "concept_capture"
	SectionRequestContext      = "request_context"
	SectionHistory             = "history"
	SectionQuestion            = "question"
)

// systemSections are the sections of the system prompt; every sheet must
// have each of them (a sheet can render one empty to leave it out).
var systemSections = []string{
	SectionBaseRole, SectionJurisdiction, SectionProfile, SectionDisclaimer,
	SectionConversationContext, SectionSuppliedContext, SectionConceptCapture, SectionRequestContext,
}

// messageSections render one message each.
var messageSections = []string{SectionHistory, SectionQuestion}

// Data is what the system sections of a sheet see.
type Data struct {
	AgentID       string
	Jurisdictions []string
	PersonaType   string
	// Concepts already in scope (conversation context, seed 000 §5).
	Concepts []ConceptLine
	// Supplied context items in the prompt (seed 004).
	Supplied []SuppliedLine
	// CaptureConcepts is true when the capture_concepts tool is offered.
	CaptureConcepts bool
	// RequestContext is true when the request_context tool is offered.
	RequestContext bool
}

// ConceptLine is one concept of the conversation context.
type ConceptLine struct {
	ID           string
	Label        string
	Jurisdiction string
	Definition   string
}

// SuppliedLine is one supplied context item.
type SuppliedLine struct {
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

// ConversationConcepts reads the active nodes from the graph, in the order
// of activeNodeIDs, skipping ids the graph does not hold. It returns the
// graph's error when the nodes cannot be read: the caller leaves the
// section out and warns (seed 000 §4.3).
func ConversationConcepts(ctx context.Context, reader graph.Reader, activeNodeIDs []string) ([]ConceptLine, error) {
	if len(activeNodeIDs) == 0 {
		return nil, nil
	}
	nodes, err := reader.GetNodesByIDs(ctx, activeNodeIDs)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]graph.Node, len(nodes))
	for _, n := range nodes {
		byID[n.ID] = n
	}
	var lines []ConceptLine
	for _, id := range activeNodeIDs {
		n, ok := byID[id]
		if !ok {
			continue
		}
		label := n.PrefLabel
		if label == "" {
			label = n.ID
		}
		lines = append(lines, ConceptLine{ID: n.ID, Label: label, Jurisdiction: n.Jurisdiction, Definition: n.Definition})
	}
	return lines, nil
}
