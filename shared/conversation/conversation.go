// Package conversation holds the conversation domain: conversations,
// numbered turns, the per-conversation context and the store
// interface. conversation/postgres is the production store and
// conversation/memory the embedded local one.
package conversation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"regintel/shared/llm"

	"regintel/shared/jurisdiction"
	"regintel/shared/strictjson"
)

// ErrInvalidTenant is returned by every store for a tenant id that is not a
// uuid; the auth layer maps tenant claims to uuids before they reach one.
var ErrInvalidTenant = errors.New("conversation store: tenant id is not a uuid")

// ErrNotFound is returned for a conversation that does not exist in the
// caller's tenant (whether or not it exists in another).
var ErrNotFound = errors.New("conversation not found")

// ErrIDTaken is returned when a conversation is created under an id that
// is already in use, in whatever tenant.
var ErrIDTaken = errors.New("conversation id already in use")

// DefaultMaxActiveNodes caps ConversationContext.ActiveNodeIDs.
const DefaultMaxActiveNodes = 50

// Conversation is one chat thread owned by a tenant.
type Conversation struct {
	ID             string   `json:"id"`
	TenantID       string   `json:"-"`
	OwnerID        string   `json:"ownerId"`
	Title          string   `json:"title"`
	Jurisdictions  []string `json:"jurisdictions"`
	Archived       bool     `json:"archived"`
	LastTurnNumber int      `json:"lastTurnNumber"`
	// Profile is the remembered user profile; nil until one is stored.
	Profile   *Profile  `json:"profile,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Profile is what the conversation remembers about the user between turns:
// the persona the answers address and the jurisdictions they live under.
type Profile struct {
	PersonaType   string   `json:"personaType"`
	Jurisdictions []string `json:"jurisdictions"`
}

// UnmarshalJSON reads a profile strictly: a field a profile does not have
// is an error wherever a profile is sent, as the API document says.
func (p *Profile) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var v profileFields
	if err := dec.Decode(&v); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return &strictjson.Error{Field: "profile." + strings.Trim(name, `"`), Problem: "a profile has only personaType and jurisdictions"}
		}
		return err
	}
	*p = Profile(v)
	return nil
}

// profileFields is a Profile without its UnmarshalJSON.
type profileFields Profile

// JSONShape gives a strict request decoder the profile's field names, so it
// matches them exactly (encoding/json ignores case).
func (Profile) JSONShape() any { return profileFields{} }

// Profile limits.
const (
	MaxPersonaRunes         = 200
	MaxProfileJurisdictions = 10
)

// ErrInvalidProfile is what every ProfileError is.
var ErrInvalidProfile = errors.New("invalid profile")

// ProfileError is a refused profile: the field, as a path inside the
// profile ("personaType", "jurisdictions[1]"), and the rule it broke.
type ProfileError struct {
	Field string
	Rule  string
}

func (e *ProfileError) Error() string { return "field profile." + e.Field + ": " + e.Rule }

func (e *ProfileError) Unwrap() error { return ErrInvalidProfile }

// Validate checks p and returns it with the persona trimmed and the
// jurisdictions as a non-nil list. Its errors are *ProfileError.
func (p Profile) Validate() (Profile, error) {
	p, reason := p.check()
	if reason != nil {
		return p, reason
	}
	return p, nil
}

func (p Profile) check() (Profile, *ProfileError) {
	p.PersonaType = strings.TrimSpace(p.PersonaType)
	if utf8.RuneCountInString(p.PersonaType) > MaxPersonaRunes {
		return p, &ProfileError{"personaType", fmt.Sprintf("is longer than %d characters", MaxPersonaRunes)}
	}
	if strings.ContainsFunc(p.PersonaType, isControl) {
		return p, &ProfileError{"personaType", "contains a control character; send text only"}
	}
	if len(p.Jurisdictions) > MaxProfileJurisdictions {
		return p, &ProfileError{"jurisdictions", fmt.Sprintf("has %d codes; send at most %d", len(p.Jurisdictions), MaxProfileJurisdictions)}
	}
	codes := make([]string, 0, len(p.Jurisdictions))
	for i, j := range p.Jurisdictions {
		if !jurisdiction.Known(j) {
			return p, &ProfileError{fmt.Sprintf("jurisdictions[%d]", i), `is not a known code; use codes such as "IE", "UK" or "EU"`}
		}
		if c := jurisdiction.Normalize(j); !slices.Contains(codes, c) {
			codes = append(codes, c)
		}
	}
	p.Jurisdictions = codes
	if p.Jurisdictions == nil {
		p.Jurisdictions = []string{}
	}
	return p, nil
}

// isControl reports control characters (newlines included), which would
// break the layout of lists and prompts.
func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// Context is the engine-owned memory of a conversation.
type Context struct {
	ActiveNodeIDs []string `json:"activeNodeIds"`
}

// TurnStatus says how a turn ended; it is stored and sent to the client as is.
type TurnStatus string

// Turn statuses.
const (
	TurnOK TurnStatus = "ok"
	// TurnError is a turn whose model call failed; the partial answer is kept.
	TurnError TurnStatus = "error"
	// TurnContextRequired is a turn that asked the client for context.
	TurnContextRequired TurnStatus = "context_required"
	// TurnInterrupted is a turn whose client went away mid-stream; the
	// partial answer is kept.
	TurnInterrupted TurnStatus = "interrupted"
	// TurnStreaming is a turn whose answer is being streamed: its question
	// is stored and its number taken before the first byte is sent. A turn
	// left in it was cut off with its process.
	TurnStreaming TurnStatus = "streaming"
)

// Valid reports whether s is one of the turn statuses.
func (s TurnStatus) Valid() bool {
	switch s {
	case TurnOK, TurnError, TurnContextRequired, TurnInterrupted, TurnStreaming:
		return true
	}
	return false
}

// Retryable reports whether a turn that ended with s may be asked again in
// place: it failed or its client went away.
func (s TurnStatus) Retryable() bool {
	return s == TurnError || s == TurnInterrupted
}

// ErrNotRetryable is returned by RetryTurn when the conversation's last
// turn did not fail and was not interrupted (or there is none).
var ErrNotRetryable = errors.New("the last turn cannot be retried")

// Usage is token usage of one turn, as the model reported it: the llm type
// itself, so a turn stores what the provider returned without a copy.
type Usage = llm.Usage

// Turn is one numbered user question and assistant answer with its metadata.
type Turn struct {
	Number          int          `json:"turnNumber"`
	UserText        string       `json:"userText"`
	AssistantText   string       `json:"assistantText"`
	Status          TurnStatus   `json:"status"`
	Provider        string       `json:"provider"`
	Model           string       `json:"model"`
	Usage           Usage        `json:"usage"`
	LatencyMS       int64        `json:"latencyMs"`
	ReferencedNodes []string     `json:"referencedNodes"`
	Metadata        TurnMetadata `json:"metadata"`
	CreatedAt       time.Time    `json:"createdAt"`
	// Profile, when set, replaces the conversation's remembered profile in
	// the same write that stores the turn. It is not read back with the turn.
	Profile *Profile `json:"-"`
	// LeaseID, when it is the conversation's current turn lease, is given
	// back in the same write.
	LeaseID string `json:"-"`
}

// TurnState is everything a new turn needs from storage, loaded together.
type TurnState struct {
	Conversation Conversation
	// History holds the last turns, oldest first.
	History []Turn
	Context Context
	// ContextErr is set when the conversation loaded but its context did not;
	// the turn goes on with the empty context.
	ContextErr error
	// Handoff is the pending context request and the supplied items, read
	// with the rest. When that part failed it is nil and HandoffErr says why.
	Handoff    *HandoffState
	HandoffErr error
	// LeaseID is the turn lease StartTurn took ("" from LoadTurnState).
	LeaseID string
	// TenantTokensToday is set by StartTurn given a token limit: the
	// tenant's usage today.
	TenantTokensToday int64
	// Reserved is the turn StartTurn reserved (its number and question,
	// status TurnStreaming), nil when it reserved none.
	Reserved *Turn
}

// Store is the whole persistence contract of a conversation: chat turns,
// context handoff (ContextRequests) and the conversation API (Admin). Every
// method is scoped by tenant and by the owner in the context (WithOwner;
// without one a call is ErrNoOwner); a conversation of another tenant or
// of another user is ErrNotFound.
type Store interface {
	ContextRequests
	Admin
	Turns
	TokenLedger
	// AppendTurn stores t under the next turn number of the conversation,
	// atomically (concurrent appends get distinct consecutive numbers), and
	// returns that number. A non-nil t.Profile replaces the conversation's
	// profile, t.LeaseID gives the turn lease back and t.Usage is added to
	// the tenant's usage of the day, all in the same write.
	AppendTurn(ctx context.Context, tenantID, conversationID string, t Turn) (int, error)
	// MergeActiveNodes adds ids to the context's activeNodeIds in one atomic
	// step: an id seen again moves to the newest end, the list is capped at
	// maxNodes dropping the oldest.
	MergeActiveNodes(ctx context.Context, tenantID, conversationID string, ids []string, maxNodes int) error
}
