package conversation

import (
	"encoding/json"
	"time"
)

// TurnMetadata is what a turn keeps about how its answer was made: the
// prompt's composition and budget, the model calls, the concepts the
// answer captured and the graph facts it was given.
type TurnMetadata struct {
	// QueryComposition is chat, kb, doc or hybrid: which context sources
	// the prompt drew on.
	QueryComposition string        `json:"queryComposition"`
	Context          *ContextUsage `json:"context,omitempty"`
	// ContextRequestID is the context request the turn raised or resumed.
	ContextRequestID string   `json:"contextRequestId,omitempty"`
	Warnings         []string `json:"warnings"`
	// ModelCalls is the number of model calls the turn's tool loop made.
	ModelCalls int `json:"modelCalls"`
	// Concepts are the turn's concepts, by resolved id, with the labels
	// they were captured with: later turns name them by these labels
	// before the graph holds them.
	Concepts []ConceptRef `json:"concepts"`
	// Citations are the graph's facts given to the model, with sources.
	Citations []Citation `json:"citations"`
	// AsOf is the date the answer is about and where it came from.
	AsOf *AsOf `json:"asOf,omitempty"`
	// Calculations are the traces of the turn's calculate tool calls, as
	// POST /calculate answers them (shared/calc's Result, kept as JSON: calc
	// builds on this package).
	Calculations json.RawMessage `json:"calculations,omitempty"`
	// Redaction is the detector version (pii.Version) the stored question
	// and answer were redacted under; empty when they were stored as
	// written. A later turn sends such text to the model without a second
	// pass while the version is the same.
	Redaction string `json:"redaction,omitempty"`
}

// AsOf is a turn's as-of date (ISO), its source (request, question or
// today) and, when read from the question, the words that named it.
type AsOf struct {
	Date   string `json:"date"`
	Source string `json:"source"`
	Phrase string `json:"phrase,omitempty"`
	// End is the last date of a range the question names ("between 2023
	// and 2025"); the turn grounds the facts of both Date and End.
	End string `json:"end,omitempty"`
}

// ConceptRef is a concept of a turn.
type ConceptRef struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// Citation is a fact of the rules graph that an answer was given: its
// value, when it is valid and where it is published.
type Citation struct {
	NodeID string `json:"nodeId"`
	Label  string `json:"label"`
	// Value is the fact's number (a percent, an amount) with its unit
	// ("%", "EUR", "EUR/week"); nil for a fact without one.
	Value *float64 `json:"value"`
	Unit  string   `json:"unit,omitempty"`
	// ValidFrom and ValidTo are ISO dates; ValidTo is null while in force,
	// ValidFrom null for an undated fact.
	ValidFrom      *string    `json:"validFrom"`
	ValidTo        *string    `json:"validTo"`
	Status         string     `json:"status,omitempty"`
	URL            string     `json:"url,omitempty"`
	LastVerifiedAt *time.Time `json:"lastVerifiedAt"`
	// MayBeOutdated is true for a value in force on the as-of date whose
	// family passed a scheduled review point (the Irish Budget, 1 January
	// and 1 April for wage floors, 6 April for UK tax) between its last
	// check at the source and that date (or today, for today or a later
	// date): the prompt said so.
	MayBeOutdated bool `json:"mayBeOutdated"`
	// Confidence is "corroborated" for a value no official page states,
	// which two independent secondary sources agree on; absent otherwise.
	Confidence string `json:"confidence,omitempty"`
}

// ContextUsage records how a prompt was fitted into the token budget.
// Counts are of the text sent.
type ContextUsage struct {
	Budget         int            `json:"budget"`
	Encoding       string         `json:"encoding"`
	SystemTokens   int            `json:"systemTokens"`
	SectionTokens  map[string]int `json:"sectionTokens"`
	SuppliedTokens int            `json:"suppliedContextTokens"`
	HistoryTokens  int            `json:"historyTokens"`
	QuestionTokens int            `json:"questionTokens"`
	ToolTokens     int            `json:"toolTokens"`
	TotalTokens    int            `json:"totalTokens"`
	HistoryWindow  int            `json:"historyWindow"`
	FactsIncluded  int            `json:"factsIncluded"`
	FactsDropped   int            `json:"factsDropped"`
	// Turn numbers of the history sent, and of loaded turns left out for
	// the budget (older turns outside the window are never loaded).
	TurnsIncluded []int `json:"turnsIncluded"`
	TurnsDropped  []int `json:"turnsDropped"`
	// Keys of supplied items sent and left out.
	SuppliedIncluded []string `json:"suppliedItemsIncluded"`
	SuppliedDropped  []string `json:"suppliedItemsDropped"`
	// What was cut with a marker: "question", "turn:<n>", "supplied:<key>".
	Truncated         []string `json:"truncated"`
	TruncationApplied bool     `json:"truncationApplied"`
}
