package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"regintel/shared/conversation"
)

// Sharing keeps conversation sharing settings in conversation_sharing,
// beside the store's conversations and on its pool. Every statement runs
// under the store's scope, so row-level security holds it to the caller's
// tenant and conversations as well as its own predicates.
type Sharing struct {
	store *Store
}

var _ conversation.SharingStore = (*Sharing)(nil)

// NewSharing returns the sharing settings of store's conversations.
func NewSharing(store *Store) *Sharing {
	return &Sharing{store: store}
}

// GetSharing implements conversation.SharingStore: one read joins the
// owner's conversation with its sharing row, if any.
func (s *Sharing) GetSharing(ctx context.Context, tenantID, conversationID string) (conversation.Sharing, error) {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.Sharing{}, err
	}
	var audience, access *string
	sh := conversation.DefaultSharing
	err = sc.queryRow(ctx, s.store.pool, `
SELECT s.share_audience, s.tenant_access, COALESCE(s.updated_at, 'epoch'::timestamptz)
FROM conversations c
LEFT JOIN conversation_sharing s ON s.tenant_id = c.tenant_id AND s.conversation_id = c.id
WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND `+ownedConversation,
		tenantID, conversationID).Scan(&audience, &access, &sh.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return conversation.Sharing{}, conversation.ErrNotFound
	}
	if err != nil {
		return conversation.Sharing{}, fmt.Errorf("get sharing: %w", err)
	}
	if audience == nil || access == nil {
		return conversation.DefaultSharing, nil
	}
	sh.Audience, sh.TenantAccess = *audience, *access
	return sh, nil
}

// ListSharing implements conversation.SharingStore. Ids that are not
// uuids cannot be conversations and are skipped.
func (s *Sharing) ListSharing(ctx context.Context, tenantID string, ids []string) (map[string]conversation.Sharing, error) {
	sc, err := scopeOf(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	valid := make([]string, 0, len(ids))
	for _, id := range ids {
		if isUUID(id) {
			valid = append(valid, id)
		}
	}
	out := map[string]conversation.Sharing{}
	if len(valid) == 0 {
		return out, nil
	}
	type row struct {
		id string
		sh conversation.Sharing
	}
	rows, err := query(ctx, s.store.pool, sc, func(r pgx.CollectableRow) (row, error) {
		var got row
		err := r.Scan(&got.id, &got.sh.Audience, &got.sh.TenantAccess, &got.sh.UpdatedAt)
		return got, err
	}, `
SELECT conversation_id::text, share_audience, tenant_access, updated_at
FROM conversation_sharing
WHERE tenant_id = $1::uuid AND conversation_id = ANY($2::uuid[])`+ofOwnedConversation,
		tenantID, valid)
	if err != nil {
		return nil, fmt.Errorf("list sharing: %w", err)
	}
	for _, r := range rows {
		out[r.id] = r.sh
	}
	return out, nil
}

// SetSharing implements conversation.SharingStore: the upsert selects the
// owner's conversation, so another owner's or tenant's id writes nothing.
func (s *Sharing) SetSharing(ctx context.Context, tenantID, conversationID string, sh conversation.Sharing) (conversation.Sharing, error) {
	if err := sh.Validate(); err != nil {
		return conversation.Sharing{}, err
	}
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.Sharing{}, err
	}
	err = sc.queryRow(ctx, s.store.pool, `
INSERT INTO conversation_sharing (tenant_id, conversation_id, owner_id, share_audience, tenant_access)
SELECT c.tenant_id, c.id, c.owner_id, $3::text, $4::text
FROM conversations c
WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND `+ownedConversation+`
ON CONFLICT (tenant_id, conversation_id) DO UPDATE
SET share_audience = EXCLUDED.share_audience, tenant_access = EXCLUDED.tenant_access, updated_at = now()
RETURNING updated_at`,
		tenantID, conversationID, sh.Audience, sh.TenantAccess).Scan(&sh.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return conversation.Sharing{}, conversation.ErrNotFound
	}
	if err != nil {
		return conversation.Sharing{}, fmt.Errorf("set sharing: %w", err)
	}
	return sh, nil
}
