package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"regintel/shared/conversation"
)

const requestColumns = `id::text, conversation_id::text, status, items, question, created_at, expires_at, resolved_at`

func scanRequest(row pgx.Row) (conversation.ContextRequest, error) {
	var r conversation.ContextRequest
	var items []byte
	if err := row.Scan(&r.ID, &r.ConversationID, &r.Status, &items, &r.Question, &r.CreatedAt, &r.ExpiresAt, &r.ResolvedAt); err != nil {
		return r, err
	}
	if err := json.Unmarshal(items, &r.Items); err != nil {
		return r, fmt.Errorf("context request %s items: %w", r.ID, err)
	}
	if r.Items == nil {
		r.Items = []conversation.RequestedItem{}
	}
	return r, nil
}

// Selecting from conversations scopes the insert to a conversation of this
// tenant: no row returned means there is none.
const insertContextRequest = `
INSERT INTO context_requests (tenant_id, conversation_id, status, items, question, expires_at)
SELECT c.tenant_id, c.id, 'pending', $3::jsonb, $4, $5::timestamptz
FROM conversations c
WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND ` + ownedConversation + `
RETURNING ` + requestColumns

// CreateContextRequest stores r as pending.
func (s *Store) CreateContextRequest(ctx context.Context, r conversation.ContextRequest) (conversation.ContextRequest, error) {
	sc, err := scope(ctx, r.TenantID, r.ConversationID)
	if err != nil {
		return conversation.ContextRequest{}, err
	}
	if r.ExpiresAt.IsZero() {
		return conversation.ContextRequest{}, errors.New("create context request: expiry is required")
	}
	items := r.Items
	if items == nil {
		items = []conversation.RequestedItem{}
	}
	raw, err := json.Marshal(items)
	if err != nil {
		return conversation.ContextRequest{}, fmt.Errorf("create context request: %w", err)
	}
	out, err := scanRequest(sc.queryRow(ctx, s.pool, insertContextRequest, r.TenantID, r.ConversationID, string(raw), r.Question, r.ExpiresAt))
	if errors.Is(err, pgx.ErrNoRows) {
		return conversation.ContextRequest{}, conversation.ErrNotFound
	}
	if err != nil {
		return conversation.ContextRequest{}, fmt.Errorf("create context request: %w", err)
	}
	out.TenantID = r.TenantID
	return out, nil
}

const selectContextRequest = `
SELECT ` + requestColumns + `
FROM context_requests
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid AND id = $3::uuid` + ofOwnedConversation

// GetContextRequest returns one request of the conversation.
func (s *Store) GetContextRequest(ctx context.Context, tenantID, conversationID, requestID string) (conversation.ContextRequest, error) {
	sc, err := requestScope(ctx, tenantID, conversationID, requestID)
	if err != nil {
		return conversation.ContextRequest{}, err
	}
	r, err := scanRequest(sc.queryRow(ctx, s.pool, selectContextRequest, tenantID, conversationID, requestID))
	if errors.Is(err, pgx.ErrNoRows) {
		return conversation.ContextRequest{}, conversation.ErrRequestNotFound
	}
	if err != nil {
		return conversation.ContextRequest{}, fmt.Errorf("get context request: %w", err)
	}
	r.TenantID = tenantID
	return r, nil
}

// requestScope is scope for calls naming a request: an id that is not a
// uuid cannot exist, so it is not found.
func requestScope(ctx context.Context, tenantID, conversationID, requestID string) (callScope, error) {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		if errors.Is(err, conversation.ErrNotFound) {
			return sc, conversation.ErrRequestNotFound
		}
		return sc, err
	}
	if !isUUID(requestID) {
		return sc, conversation.ErrRequestNotFound
	}
	return sc, nil
}

const selectHandoffRequests = `
SELECT ` + requestColumns + `
FROM context_requests
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid` + ofOwnedConversation + `
ORDER BY created_at, id`

// ListContextRequests returns the conversation's requests, oldest first.
func (s *Store) ListContextRequests(ctx context.Context, tenantID, conversationID string) ([]conversation.ContextRequest, error) {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return nil, err
	}
	out, err := query(ctx, s.pool, sc, func(row pgx.CollectableRow) (conversation.ContextRequest, error) {
		r, err := scanRequest(row)
		r.TenantID = tenantID
		return r, err
	}, selectHandoffRequests, tenantID, conversationID)
	if err != nil {
		return nil, fmt.Errorf("list context requests: %w", err)
	}
	if out == nil {
		out = []conversation.ContextRequest{}
	}
	return out, nil
}

// The WHERE status = 'pending' makes the transition happen once: a
// concurrent caller waits for the row lock, re-checks the condition against
// the committed row and updates nothing.
const resolveContextRequest = `
UPDATE context_requests
SET status = $4, resolved_at = now()
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid AND id = $3::uuid AND status = 'pending'` + ofOwnedConversation + `
RETURNING ` + requestColumns

// ResolveContextRequest moves a pending request to status, exactly once.
func (s *Store) ResolveContextRequest(ctx context.Context, tenantID, conversationID, requestID, status string) (conversation.ContextRequest, error) {
	sc, err := requestScope(ctx, tenantID, conversationID, requestID)
	if err != nil {
		return conversation.ContextRequest{}, err
	}
	switch status {
	case conversation.RequestFulfilled, conversation.RequestExpired, conversation.RequestSkipped:
	default:
		return conversation.ContextRequest{}, fmt.Errorf("resolve context request: status %q is not a final status", status)
	}
	r, err := scanRequest(sc.queryRow(ctx, s.pool, resolveContextRequest, tenantID, conversationID, requestID, status))
	if errors.Is(err, pgx.ErrNoRows) {
		// Either it does not exist or it is no longer pending.
		if _, getErr := s.GetContextRequest(ctx, tenantID, conversationID, requestID); getErr != nil {
			return conversation.ContextRequest{}, getErr
		}
		return conversation.ContextRequest{}, conversation.ErrRequestNotPending
	}
	if err != nil {
		return conversation.ContextRequest{}, fmt.Errorf("resolve context request: %w", err)
	}
	r.TenantID = tenantID
	return r, nil
}

const selectPendingRequest = `
SELECT ` + requestColumns + `
FROM context_requests
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid AND status = 'pending'` + ofOwnedConversation + `
ORDER BY created_at DESC, id DESC
LIMIT 1`

const itemColumns = `id::text, conversation_id::text, coalesce(request_id::text, ''), key, kind, content, redacted, created_at, last_used_at`

const selectHandoffItems = `
SELECT ` + itemColumns + `
FROM supplied_context_items
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid` + ofOwnedConversation + `
ORDER BY created_at, id`

func scanItem(row pgx.CollectableRow) (conversation.SuppliedItem, error) {
	var it conversation.SuppliedItem
	err := row.Scan(&it.ID, &it.ConversationID, &it.RequestID, &it.Key, &it.Kind, &it.Content, &it.Redacted, &it.CreatedAt, &it.LastUsedAt)
	return it, err
}

// LoadHandoffState reads the newest pending request and the supplied items
// in one pipelined batch.
func (s *Store) LoadHandoffState(ctx context.Context, tenantID, conversationID string) (conversation.HandoffState, error) {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.HandoffState{}, err
	}
	batch := sc.newBatch()
	queueHandoff(batch, tenantID, conversationID)
	results, err := send(ctx, s.pool, batch)
	if err != nil {
		return conversation.HandoffState{}, fmt.Errorf("load handoff state: %w", err)
	}
	defer results.Close()
	return readHandoff(results, tenantID)
}

// queueHandoff adds the handoff reads to a batch (LoadTurnState sends them
// with the conversation's own reads, in the same round trip).
func queueHandoff(batch *pgx.Batch, tenantID, conversationID string) {
	batch.Queue(selectPendingRequest, tenantID, conversationID)
	batch.Queue(selectHandoffItems, tenantID, conversationID)
}

// readHandoff reads the results queued by queueHandoff.
func readHandoff(results pgx.BatchResults, tenantID string) (conversation.HandoffState, error) {
	var state conversation.HandoffState
	pending, err := scanRequest(results.QueryRow())
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return conversation.HandoffState{}, fmt.Errorf("load pending context request: %w", err)
	default:
		pending.TenantID = tenantID
		state.Pending = &pending
	}
	rows, err := results.Query()
	if err != nil {
		return conversation.HandoffState{}, fmt.Errorf("load supplied context: %w", err)
	}
	state.Items, err = pgx.CollectRows(rows, scanItem)
	if err != nil {
		return conversation.HandoffState{}, fmt.Errorf("load supplied context: %w", err)
	}
	for i := range state.Items {
		state.Items[i].TenantID = tenantID
	}
	if state.Items == nil {
		state.Items = []conversation.SuppliedItem{}
	}
	return state, nil
}

// supplyItems inserts the items, replacing (as a new item) any with the same
// key in one atomic upsert; selecting from conversations scopes it to the
// tenant.
const supplyItems = `
WITH conv AS (
    SELECT tenant_id, id FROM conversations c
    WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND ` + ownedConversation + `
),
incoming AS (
    SELECT * FROM jsonb_to_recordset($3::jsonb)
        AS x(request_id uuid, key text, kind text, content text, redacted boolean)
)
INSERT INTO supplied_context_items (tenant_id, conversation_id, request_id, key, kind, content, redacted)
SELECT conv.tenant_id, conv.id, incoming.request_id, incoming.key, incoming.kind, incoming.content, incoming.redacted
FROM conv, incoming
ON CONFLICT (tenant_id, conversation_id, key) DO UPDATE SET
    id = gen_random_uuid(),
    request_id = EXCLUDED.request_id,
    kind = EXCLUDED.kind,
    content = EXCLUDED.content,
    redacted = EXCLUDED.redacted,
    created_at = now(),
    last_used_at = now()
RETURNING ` + itemColumns

type suppliedRow struct {
	RequestID *string `json:"request_id"`
	Key       string  `json:"key"`
	Kind      string  `json:"kind"`
	Content   string  `json:"content"`
	Redacted  bool    `json:"redacted"`
}

// SupplyItems stores items, replacing earlier items with the same keys, and
// returns them in the order given.
func (s *Store) SupplyItems(ctx context.Context, tenantID, conversationID string, items []conversation.SuppliedItem) ([]conversation.SuppliedItem, error) {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return []conversation.SuppliedItem{}, nil
	}
	in := make([]suppliedRow, len(items))
	position := make(map[string]int, len(items))
	for i, it := range items {
		if _, dup := position[it.Key]; dup {
			return nil, fmt.Errorf("supply context: key %q given twice", it.Key)
		}
		position[it.Key] = i
		if !conversation.ValidKind(it.Kind) {
			return nil, fmt.Errorf("supply context: kind %q is not a context kind", it.Kind)
		}
		row := suppliedRow{Key: it.Key, Kind: it.Kind, Content: it.Content, Redacted: it.Redacted}
		if it.RequestID != "" {
			if !isUUID(it.RequestID) {
				return nil, conversation.ErrRequestNotFound
			}
			row.RequestID = &it.RequestID
		}
		in[i] = row
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("supply context: %w", err)
	}
	stored, err := query(ctx, s.pool, sc, scanItem, supplyItems, tenantID, conversationID, string(raw))
	if err != nil {
		return nil, fmt.Errorf("supply context: %w", err)
	}
	if len(stored) == 0 {
		return nil, conversation.ErrNotFound
	}
	out := make([]conversation.SuppliedItem, len(items))
	for _, it := range stored {
		it.TenantID = tenantID
		out[position[it.Key]] = it
	}
	return out, nil
}

const touchSuppliedItems = `
UPDATE supplied_context_items SET last_used_at = $4::timestamptz
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid AND id = ANY($3::uuid[])` + ofOwnedConversation

// TouchSuppliedItems marks the items as used now.
func (s *Store) TouchSuppliedItems(ctx context.Context, tenantID, conversationID string, itemIDs []string) error {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return err
	}
	valid := make([]string, 0, len(itemIDs))
	for _, id := range itemIDs {
		if isUUID(id) {
			valid = append(valid, id)
		}
	}
	if len(valid) == 0 {
		return nil
	}
	if _, err := sc.exec(ctx, s.pool, touchSuppliedItems, tenantID, conversationID, valid, time.Now()); err != nil {
		return fmt.Errorf("touch supplied context: %w", err)
	}
	return nil
}

const deleteSuppliedItem = `
DELETE FROM supplied_context_items
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid AND id = $3::uuid` + ofOwnedConversation

// DeleteSuppliedItem removes one item.
func (s *Store) DeleteSuppliedItem(ctx context.Context, tenantID, conversationID, itemID string) error {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		if errors.Is(err, conversation.ErrNotFound) {
			return conversation.ErrItemNotFound
		}
		return err
	}
	if !isUUID(itemID) {
		return conversation.ErrItemNotFound
	}
	deleted, err := sc.exec(ctx, s.pool, deleteSuppliedItem, tenantID, conversationID, itemID)
	if err != nil {
		return fmt.Errorf("delete supplied context: %w", err)
	}
	if deleted == 0 {
		return conversation.ErrItemNotFound
	}
	return nil
}
