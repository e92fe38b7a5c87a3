package conversation

import (
	"context"
	"errors"
	"time"
)

// Share audiences and tenant access levels, as the reference web app names
// them.
const (
	AudiencePrivate = "private"
	AudienceTenant  = "tenant"
	AudiencePublic  = "public"
	AccessView      = "view"
	AccessEdit      = "edit"
)

// Sharing is what an owner asked a conversation to be shared with. It is
// stored as asked and grants nothing: access stays with the owner.
type Sharing struct {
	Audience     string
	TenantAccess string
	// UpdatedAt is when it was last set; zero when never set.
	UpdatedAt time.Time
}

// DefaultSharing is the sharing of a conversation whose owner never set one.
var DefaultSharing = Sharing{Audience: AudiencePrivate, TenantAccess: AccessEdit}

// ErrInvalidSharing is returned for an audience or access level that is
// not one of the names above.
var ErrInvalidSharing = errors.New("invalid sharing: shareAudience is private, tenant or public; tenantAccess is view or edit")

// Validate reports whether s names a known audience and access level.
func (s Sharing) Validate() error {
	switch s.Audience {
	case AudiencePrivate, AudienceTenant, AudiencePublic:
	default:
		return ErrInvalidSharing
	}
	if s.TenantAccess != AccessView && s.TenantAccess != AccessEdit {
		return ErrInvalidSharing
	}
	return nil
}

// SharingStore keeps the sharing settings of conversations, apart from the
// conversations themselves. Every method is scoped by tenant and by the
// owner in the context (WithOwner; without one a call is ErrNoOwner): a
// conversation of another tenant or another owner is ErrNotFound.
type SharingStore interface {
	// GetSharing returns the conversation's sharing, DefaultSharing when
	// none was set.
	GetSharing(ctx context.Context, tenantID, conversationID string) (Sharing, error)
	// ListSharing returns the sharing of each of the owner's conversations
	// among ids that has one set; the others are absent.
	ListSharing(ctx context.Context, tenantID string, ids []string) (map[string]Sharing, error)
	// SetSharing replaces the conversation's sharing and returns it stored.
	SetSharing(ctx context.Context, tenantID, conversationID string, s Sharing) (Sharing, error)
}
