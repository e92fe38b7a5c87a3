package compat

import (
	"fmt"
	"time"

	"regintel/shared/conversation"
)

// Conversation is a conversation as the reference app's list and header
// read it.
type Conversation struct {
	ID string `json:"id"`
	// Title is null while the conversation has none.
	Title         *string `json:"title"`
	ShareAudience string  `json:"shareAudience"`
	TenantAccess  string  `json:"tenantAccess"`
	// EffectiveAccess is always "owner": sharing settings grant nothing.
	EffectiveAccess string   `json:"effectiveAccess"`
	Jurisdictions   []string `json:"jurisdictions"`
	// LastMessageAt is the last turn's activity; null before the first turn.
	LastMessageAt *time.Time `json:"lastMessageAt"`
	CreatedAt     time.Time  `json:"createdAt"`
	// ArchivedAt is non-null for an archived conversation. The time of
	// archiving is not kept, so it is the conversation's last activity.
	ArchivedAt *time.Time `json:"archivedAt"`
}

// ConversationDetail is the conversation of GET /api/conversations/{id}.
type ConversationDetail struct {
	Conversation
	// PersonaID is the remembered persona, absent when none is.
	PersonaID    string `json:"personaId,omitempty"`
	ActivePathID string `json:"activePathId"`
}

// Message is one side of a turn, in the reference's path-aware shape.
type Message struct {
	ID             string `json:"id"`
	ConversationID string `json:"conversationId"`
	PathID         string `json:"pathId"`
	Role           string `json:"role"`
	Content        string `json:"content"`
	// Metadata is set on assistant messages.
	Metadata        *Metadata `json:"metadata,omitempty"`
	SequenceInPath  int       `json:"sequenceInPath"`
	IsBranchPoint   bool      `json:"isBranchPoint"`
	BranchedToPaths []string  `json:"branchedToPaths"`
	MessageType     string    `json:"messageType"`
	IsPinned        bool      `json:"isPinned"`
	CreatedAt       time.Time `json:"createdAt"`
}

// Metadata is an answer's metadata: the reference's fields next to our own
// (the turn's stored metadata, embedded).
type Metadata struct {
	TurnNumber      int                     `json:"turnNumber"`
	Status          conversation.TurnStatus `json:"status"`
	ReferencedNodes []string                `json:"referencedNodes"`
	// PriorTurnNodes are the concepts earlier turns brought into play.
	PriorTurnNodes []NodeSummary `json:"priorTurnNodes"`
	// ConversationContextSummary names them in a sentence; absent when
	// there are none.
	ConversationContextSummary string             `json:"conversationContextSummary,omitempty"`
	Jurisdictions              []string           `json:"jurisdictions"`
	DisclaimerKey              string             `json:"disclaimerKey"`
	Provider                   string             `json:"provider"`
	Model                      string             `json:"model"`
	Usage                      conversation.Usage `json:"usage"`
	LatencyMS                  int64              `json:"latencyMs"`
	conversation.TurnMetadata
}

// NodeSummary is a graph node as the reference's cards show it.
type NodeSummary struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Type  string `json:"type"`
}

// Path is the single main path of a conversation, in the reference's
// path shape: branching is not part of this backend.
type Path struct {
	ID                   string     `json:"id"`
	ConversationID       string     `json:"conversationId"`
	ParentPathID         *string    `json:"parentPathId"`
	BranchPointMessageID *string    `json:"branchPointMessageId"`
	Name                 *string    `json:"name"`
	Description          *string    `json:"description"`
	IsPrimary            bool       `json:"isPrimary"`
	IsActive             bool       `json:"isActive"`
	IsMerged             bool       `json:"isMerged"`
	MergedToPathID       *string    `json:"mergedToPathId"`
	MergedAt             *time.Time `json:"mergedAt"`
	MergeMode            *string    `json:"mergeMode"`
	MessageCount         int        `json:"messageCount"`
	BranchCount          int        `json:"branchCount"`
	CreatedAt            time.Time  `json:"createdAt"`
	UpdatedAt            time.Time  `json:"updatedAt"`
}

// mainPathID names a conversation's one path: the conversation's own id.
func mainPathID(c conversation.Conversation) string { return c.ID }

func conversationView(c conversation.Conversation, sh conversation.Sharing) Conversation {
	v := Conversation{
		ID: c.ID, ShareAudience: sh.Audience, TenantAccess: sh.TenantAccess, EffectiveAccess: EffectiveAccess,
		Jurisdictions: jurisdictionsOf(c), CreatedAt: c.CreatedAt,
	}
	if c.Title != "" {
		title := c.Title
		v.Title = &title
	}
	if c.LastTurnNumber > 0 {
		at := c.UpdatedAt
		v.LastMessageAt = &at
	}
	if c.Archived {
		at := c.UpdatedAt
		v.ArchivedAt = &at
	}
	return v
}

// jurisdictionsOf prefers the remembered profile's jurisdictions.
func jurisdictionsOf(c conversation.Conversation) []string {
	if c.Profile != nil && len(c.Profile.Jurisdictions) > 0 {
		return c.Profile.Jurisdictions
	}
	if c.Jurisdictions == nil {
		return []string{}
	}
	return c.Jurisdictions
}

func mainPath(c conversation.Conversation, messages int) Path {
	return Path{
		ID: mainPathID(c), ConversationID: c.ID, IsPrimary: true, IsActive: true,
		MessageCount: messages, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
	}
}

// messageID names one side of a turn; it is stable across reads.
func messageID(turn int, role string) string { return fmt.Sprintf("turn-%d-%s", turn, role) }
