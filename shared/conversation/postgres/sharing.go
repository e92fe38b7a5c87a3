package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"regintel/shared/conversation"
)

// Sharing keeps conversation sharing settings in conversation_sharing,
// beside the store's conversations and on its pool.
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
func (s *Sharing) GetSharing(ctx context.Context, tenantID, ownerID, conversationID string) (conversation.Sharing, error) {
	if err := scope(tenantID, conversationID); err != nil {
		return conversation.Sharing{}, err
	}
	var audience, access *string
	sh := conversation.DefaultSharing
	err := s.store.pool.QueryRow(ctx, `
SELECT s.share_audience, s.tenant_access, COALESCE(s.updated_at, 'epoch'::timestamptz)
FROM conversations c
LEFT JOIN conversation_sharing s ON s.tenant_id = c.tenant_id AND s.conversation_id = c.id
WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND c.owner_id = $3::text`,
		tenantID, conversationID, ownerID).Scan(&audience, &access, &sh.UpdatedAt)
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
func (s *Sharing) ListSharing(ctx context.Context, tenantID, ownerID string, ids []string) (map[string]conversation.Sharing, error) {
	if !isUUID(tenantID) {
		return nil, ErrInvalidTenant
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
	rows, err := s.store.pool.Query(ctx, `
SELECT conversation_id::text, share_audience, tenant_access, updated_at
FROM conversation_sharing
WHERE tenant_id = $1::uuid AND owner_id = $2::text AND conversation_id = ANY($3::uuid[])`,
		tenantID, ownerID, valid)
	if err != nil {
		return nil, fmt.Errorf("list sharing: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var sh conversation.Sharing
		if err := rows.Scan(&id, &sh.Audience, &sh.TenantAccess, &sh.UpdatedAt); err != nil {
			return nil, fmt.Errorf("list sharing: %w", err)
		}
		out[id] = sh
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sharing: %w", err)
	}
	return out, nil
}

// SetSharing implements conversation.SharingStore: the upsert selects the
// owner's conversation, so another owner's or tenant's id writes nothing.
func (s *Sharing) SetSharing(ctx context.Context, tenantID, ownerID, conversationID string, sh conversation.Sharing) (conversation.Sharing, error) {
	if err := sh.Validate(); err != nil {
		return conversation.Sharing{}, err
	}
	if err := scope(tenantID, conversationID); err != nil {
		return conversation.Sharing{}, err
	}
	err := s.store.pool.QueryRow(ctx, `
INSERT INTO conversation_sharing (tenant_id, conversation_id, owner_id, share_audience, tenant_access)
SELECT c.tenant_id, c.id, c.owner_id, $4::text, $5::text
FROM conversations c
WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND c.owner_id = $3::text
ON CONFLICT (tenant_id, conversation_id) DO UPDATE
SET share_audience = EXCLUDED.share_audience, tenant_access = EXCLUDED.tenant_access, updated_at = now()
RETURNING updated_at`,
		tenantID, conversationID, ownerID, sh.Audience, sh.TenantAccess).Scan(&sh.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return conversation.Sharing{}, conversation.ErrNotFound
	}
	if err != nil {
		return conversation.Sharing{}, fmt.Errorf("set sharing: %w", err)
	}
	return sh, nil
}
