package conversation

import "time"

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
}

// ConceptRef is a concept of a turn.
type ConceptRef struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// Citation is a fact of the rules graph that an answer was given.
type Citation struct {
	NodeID         string     `json:"nodeId"`
	Label          string     `json:"label"`
	URL            string     `json:"url,omitempty"`
	LastVerifiedAt *time.Time `json:"lastVerifiedAt"`
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
