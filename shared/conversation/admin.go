package conversation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Admin is what the conversation API needs beyond a chat turn: listing,
// reading, renaming and archiving, erasing and exporting a user's
// conversations. Every method is scoped by tenant and by the owner in the
// context (WithOwner); another tenant's or user's conversation is
// ErrNotFound, and a list never shows it.
type Admin interface {
	// ListConversations returns one page of the owner's conversations,
	// newest activity first (updated_at, then id, both descending).
	ListConversations(ctx context.Context, tenantID string, q ListQuery) (Page, error)
	// GetConversation returns the conversation with every turn, its active
	// concept ids, its unexpired pending context requests and its supplied
	// context items.
	GetConversation(ctx context.Context, tenantID, conversationID string) (Detail, error)
	// UpdateConversation changes the title, the archived flag and/or the
	// remembered profile. It does not count as activity: updated_at, and so
	// list order, stay as they were.
	UpdateConversation(ctx context.Context, tenantID, conversationID string, u Update) (Conversation, error)
	// DeleteConversation erases the conversation and every row tied to it
	// (turns, context, context requests, supplied items) in one transaction.
	DeleteConversation(ctx context.Context, tenantID, conversationID string) (Erased, error)
	// ExportConversation returns everything stored about the conversation,
	// read from one consistent snapshot.
	ExportConversation(ctx context.Context, tenantID, conversationID string) (Export, error)
	// SetTurnFeedback stores f on turn f.TurnNumber, replacing any earlier
	// feedback on it; ErrTurnNotFound when the conversation has no such turn.
	// The feedback goes with its turn and conversation.
	SetTurnFeedback(ctx context.Context, tenantID, conversationID string, f Feedback) error
}

// List page sizes.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
)

// MaxTitleRunes bounds a conversation title.
const MaxTitleRunes = 200

// ErrInvalidCursor is returned for a page cursor not of CursorPattern's form.
var ErrInvalidCursor = errors.New("invalid page cursor")

// ListQuery selects one page of conversations.
type ListQuery struct {
	// Archived, when set, lists only archived (true) or unarchived (false)
	// conversations.
	Archived *bool
	// Cursor is the NextCursor of the previous page; empty for the first.
	Cursor string
	// Limit is the page size: zero or less means DefaultPageSize, and it is
	// capped at MaxPageSize.
	Limit int
	// Search, when not empty, lists only conversations in which every one
	// of its words (SearchWords) appears, ignoring case, in the title or
	// in some turn's question or answer.
	Search string
}

// MaxSearchRunes bounds a conversation search.
const MaxSearchRunes = 200

// ErrInvalidSearch wraps the reason a search is refused.
var ErrInvalidSearch = errors.New("invalid search")

// SearchWords returns the words of a search (split at white space), or
// ErrInvalidSearch when it has none, is longer than MaxSearchRunes or
// holds a control character other than white space.
func SearchWords(search string) ([]string, error) {
	if utf8.RuneCountInString(search) > MaxSearchRunes {
		return nil, errors.Join(ErrInvalidSearch, fmt.Errorf("q is longer than %d characters", MaxSearchRunes))
	}
	words := strings.Fields(search)
	if len(words) == 0 {
		return nil, errors.Join(ErrInvalidSearch, errors.New("q has no words; omit it to list every conversation"))
	}
	for _, w := range words {
		if strings.ContainsFunc(w, isControl) {
			return nil, errors.Join(ErrInvalidSearch, errors.New("q contains control characters"))
		}
	}
	return words, nil
}

// PageSize returns the effective page size of q.
func (q ListQuery) PageSize() int {
	switch {
	case q.Limit <= 0:
		return DefaultPageSize
	case q.Limit > MaxPageSize:
		return MaxPageSize
	}
	return q.Limit
}

// Page is one page of a conversation list.
type Page struct {
	Conversations []Conversation `json:"conversations"`
	// NextCursor fetches the following page; empty on the last one.
	NextCursor string `json:"nextCursor,omitempty"`
}

// Cursor is the keyset position after which a page starts: the sort key of
// the last conversation of the previous page.
type Cursor struct {
	UpdatedAt time.Time
	ID        string
}

// CursorAfter returns the cursor that continues a list after c.
func CursorAfter(c Conversation) Cursor {
	return Cursor{UpdatedAt: c.UpdatedAt, ID: c.ID}
}

// CursorPattern is the form of a page cursor, as the API document states
// it: the keyset position SECONDS.NANOSECONDS_ID (the last conversation's
// updated_at in Unix time and its id). Any cursor of this form is a
// position, issued or not: the page after it holds the caller's own
// conversations only, so a made-up one shows nothing it should not.
const CursorPattern = `^[0-9]{1,11}\.[0-9]{9}_[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`

var cursorForm = regexp.MustCompile(CursorPattern)

// Encode returns the cursor as a URL-safe token of CursorPattern's form.
func (c Cursor) Encode() string {
	at := c.UpdatedAt.UTC()
	return fmt.Sprintf("%d.%09d_%s", at.Unix(), at.Nanosecond(), c.ID)
}

// ParseCursor reads a token of CursorPattern's form; any other is
// ErrInvalidCursor.
func ParseCursor(token string) (Cursor, error) {
	if !cursorForm.MatchString(token) {
		return Cursor{}, ErrInvalidCursor
	}
	stamp, id, _ := strings.Cut(token, "_")
	secs, nanos, _ := strings.Cut(stamp, ".")
	sec, err1 := strconv.ParseInt(secs, 10, 64)
	nsec, err2 := strconv.ParseInt(nanos, 10, 64)
	if err1 != nil || err2 != nil {
		return Cursor{}, ErrInvalidCursor
	}
	return Cursor{UpdatedAt: time.Unix(sec, nsec).UTC(), ID: id}, nil
}

// Update is a partial change to a conversation; nil fields stay as they are.
type Update struct {
	Title    *string
	Archived *bool
	// Profile replaces the remembered profile.
	Profile *Profile
}

// ErrInvalidUpdate wraps the reason an Update is refused.
var ErrInvalidUpdate = errors.New("invalid update")

// Validate checks u and returns it with the title trimmed.
func (u Update) Validate() (Update, error) {
	if u.Title == nil && u.Archived == nil && u.Profile == nil {
		return u, errors.Join(ErrInvalidUpdate, errors.New("nothing to change: send title, archived and/or profile"))
	}
	if u.Title != nil {
		// The limit is on the title as sent, as the API document states it.
		title := strings.TrimSpace(*u.Title)
		if utf8.RuneCountInString(*u.Title) > MaxTitleRunes {
			return u, errors.Join(ErrInvalidUpdate, errors.New("title is longer than 200 characters"))
		}
		if strings.ContainsFunc(title, isControl) {
			return u, errors.Join(ErrInvalidUpdate, errors.New("title contains control characters"))
		}
		u.Title = &title
	}
	if u.Profile != nil {
		p, reason := u.Profile.check()
		if reason != nil {
			return u, errors.Join(ErrInvalidUpdate, reason)
		}
		u.Profile = &p
	}
	return u, nil
}

// Detail is a conversation as the conversation API shows it.
type Detail struct {
	Conversation Conversation
	// Turns holds every turn, oldest first.
	Turns         []Turn
	ActiveNodeIDs []string
	// PendingRequests are context requests still waiting for the client.
	PendingRequests []ContextRequest
	SuppliedItems   []SuppliedItem
}

// StoredContext is the conversation_context row as held.
type StoredContext struct {
	// Data is context_json exactly as stored.
	Data      json.RawMessage `json:"data"`
	UpdatedAt *time.Time      `json:"updatedAt,omitempty"`
}

// Export is everything stored about one conversation.
type Export struct {
	TenantID     string       `json:"tenantId"`
	Conversation Conversation `json:"conversation"`
	// Turns holds every turn, oldest first.
	Turns []Turn `json:"turns"`
	// Context is nil when the conversation has none.
	Context         *StoredContext   `json:"context"`
	ContextRequests []ContextRequest `json:"contextRequests"`
	SuppliedItems   []SuppliedItem   `json:"suppliedContextItems"`
	// RecordedStream is the latest turn's recorded stream (Streams), nil
	// when none is kept.
	RecordedStream *RecordedStream `json:"recordedStream"`
	// Sharing is what the owner set the conversation to be shared with,
	// nil when never set.
	Sharing *ExportedSharing `json:"sharing"`
	// Feedback is the user's feedback on the turns, by turn number.
	Feedback []Feedback `json:"feedback"`
}

// ExportedSharing is a conversation's sharing setting as exported.
type ExportedSharing struct {
	ShareAudience string    `json:"shareAudience"`
	TenantAccess  string    `json:"tenantAccess"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

// RecordedStream is a conversation's recorded turn stream as exported.
type RecordedStream struct {
	TurnNumber    int           `json:"turnNumber"`
	Format        string        `json:"format"`
	StopRequested bool          `json:"stopRequested"`
	Events        []StreamEvent `json:"events"`
}

// Erased counts the rows a DeleteConversation removed, per table.
type Erased struct {
	Conversations   int64 `json:"conversations"`
	Turns           int64 `json:"turns"`
	Contexts        int64 `json:"contexts"`
	ContextRequests int64 `json:"contextRequests"`
	SuppliedItems   int64 `json:"suppliedItems"`
	Feedback        int64 `json:"feedback"`
}
