// Package postgres is the production conversation.Store on PostgreSQL
// (Aurora in AWS), over the schema in migrations/.
//
// Every statement filters by tenant_id and by the owner in the context
// (conversation.WithOwner), under row-level security scoped to both (see
// scope.go), and each operation is one round trip: LoadTurnState and
// StartTurn pipeline their reads in one batch, AppendTurn numbers and
// inserts in one statement, FinishTurn stores the outcome and merges the
// context in one batch, MergeActiveNodes merges in SQL in one upsert. SQL casts parameters explicitly because the pool runs in
// pgx's exec mode (see shared/postgres).
package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"regintel/shared/conversation"
)

// Store implements conversation.Store.
type Store struct {
	pool *pgxpool.Pool
}

var _ conversation.Store = (*Store)(nil)

// New returns a store on pool. The schema must be migrated
// (shared/postgres.Migrate).
func New(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool}
}

// scope validates the ids of a conversation-scoped call and takes its
// owner from ctx. A conversation id that is not a uuid cannot exist, so it
// is ErrNotFound.
func scope(ctx context.Context, tenantID, conversationID string) (callScope, error) {
	sc, err := scopeOf(ctx, tenantID)
	if err != nil {
		return sc, err
	}
	if !isUUID(conversationID) {
		return sc, conversation.ErrNotFound
	}
	return sc, nil
}

// isUUID accepts the hyphenated 36-character form only, the one ids are
// issued in.
func isUUID(s string) bool {
	return len(s) == 36 && uuid.Validate(s) == nil
}

// conversationColumns are read by scanConversation.
const conversationColumns = `id::text, owner_id, title, jurisdictions, archived, last_turn_number, profile, created_at, updated_at`

// scanConversation reads the conversationColumns of one row.
func scanConversation(row pgx.Row, tenantID string) (conversation.Conversation, error) {
	c := conversation.Conversation{TenantID: tenantID}
	var profile []byte
	err := row.Scan(&c.ID, &c.OwnerID, &c.Title, &c.Jurisdictions, &c.Archived,
		&c.LastTurnNumber, &profile, &c.CreatedAt, &c.UpdatedAt)
	if err != nil {
		return c, err
	}
	c.Jurisdictions = nonNil(c.Jurisdictions)
	if profile != nil {
		c.Profile = &conversation.Profile{}
		if err := json.Unmarshal(profile, c.Profile); err != nil {
			return c, fmt.Errorf("conversation %s profile: %w", c.ID, err)
		}
		c.Profile.Jurisdictions = nonNil(c.Profile.Jurisdictions)
	}
	return c, nil
}

// encodeProfile is the jsonb parameter for p: null (keep or store none)
// when p is nil.
func encodeProfile(p *conversation.Profile) (*string, error) {
	if p == nil {
		return nil, nil
	}
	stored := conversation.Profile{PersonaType: p.PersonaType, Jurisdictions: nonNil(p.Jurisdictions)}
	b, err := json.Marshal(stored)
	if err != nil {
		return nil, fmt.Errorf("encode profile: %w", err)
	}
	raw := string(b)
	return &raw, nil
}

const insertConversation = `
INSERT INTO conversations (id, tenant_id, owner_id, title, jurisdictions, archived, profile)
VALUES (coalesce($1::uuid, gen_random_uuid()), $2::uuid, $3, $4, $5::text[], $6, $7::jsonb)
RETURNING ` + conversationColumns

// CreateConversation inserts c. An empty c.ID gets a new uuid; a given one
// must be a uuid not yet in use.
func (s *Store) CreateConversation(ctx context.Context, c conversation.Conversation) (conversation.Conversation, error) {
	sc, id, profile, err := newConversationParams(c)
	if err != nil {
		return conversation.Conversation{}, err
	}
	out, err := scanConversation(sc.queryRow(ctx, s.pool, insertConversation,
		id, c.TenantID, c.OwnerID, c.Title, nonNil(c.Jurisdictions), c.Archived, profile), c.TenantID)
	if err != nil {
		return conversation.Conversation{}, fmt.Errorf("create conversation: %w", err)
	}
	return out, nil
}

// newConversationParams checks c and returns its scope, its id parameter
// (null: a new uuid) and its profile parameter.
func newConversationParams(c conversation.Conversation) (callScope, *string, *string, error) {
	if !isUUID(c.TenantID) {
		return callScope{}, nil, nil, conversation.ErrInvalidTenant
	}
	if c.OwnerID == "" {
		return callScope{}, nil, nil, conversation.ErrNoOwner
	}
	sc := callScope{tenant: c.TenantID, owner: c.OwnerID}
	var id *string
	if c.ID != "" {
		if !isUUID(c.ID) {
			return sc, nil, nil, errors.New("create conversation: id is not a uuid")
		}
		id = &c.ID
	}
	profile, err := encodeProfile(c.Profile)
	if err != nil {
		return sc, nil, nil, fmt.Errorf("create conversation: %w", err)
	}
	return sc, id, profile, nil
}

const selectConversation = `
SELECT ` + conversationColumns + `
FROM conversations c
WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND ` + ownedConversation

// The newest $3 turns, returned oldest first.
const selectRecentTurns = `
SELECT ` + turnColumns + `
FROM (
    SELECT * FROM conversation_turns
    WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid` + ofOwnedConversation + `
    ORDER BY turn_number DESC
    LIMIT $3::integer
) recent
ORDER BY turn_number`

const selectContext = `
SELECT context_json FROM conversation_context
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid` + ofOwnedConversation

// LoadTurnState sends the conversation, history and context reads as one
// pipelined batch: one network round trip. The context read comes last, so
// its failure (or an unreadable context_json) leaves the rest intact and is
// reported in ContextErr.
func (s *Store) LoadTurnState(ctx context.Context, tenantID, conversationID string, historyTurns int) (conversation.TurnState, error) {
	return s.loadTurn(ctx, tenantID, conversationID, conversation.TurnStart{HistoryTurns: historyTurns}, "")
}

func scanTurn(row pgx.CollectableRow) (conversation.Turn, error) {
	var t conversation.Turn
	var metadata []byte
	err := row.Scan(&t.Number, &t.UserText, &t.AssistantText, &t.Status, &t.Provider, &t.Model,
		&t.Usage.InputTokens, &t.Usage.OutputTokens, &t.Usage.TotalTokens, &t.LatencyMS,
		&t.ReferencedNodes, &metadata, &t.CreatedAt, &t.Usage.CachedInputTokens, &t.Usage.CostUSD, &t.Usage.Estimated)
	if err != nil {
		return t, err
	}
	t.ReferencedNodes = nonNil(t.ReferencedNodes)
	if err := json.Unmarshal(metadata, &t.Metadata); err != nil {
		return t, fmt.Errorf("turn %d metadata: %w", t.Number, err)
	}
	return t, nil
}

func decodeContext(raw []byte) (conversation.Context, error) {
	var c conversation.Context
	if err := json.Unmarshal(raw, &c); err != nil {
		return emptyContext(), fmt.Errorf("decode conversation context: %w", err)
	}
	c.ActiveNodeIDs = nonNil(c.ActiveNodeIDs)
	return c, nil
}

// appendTurn takes the next number by incrementing the conversation's
// counter and inserts the turn under it, in one statement. The UPDATE's row
// lock serialises concurrent appends; if the INSERT fails the increment
// rolls back with it, so numbers have no gaps. The same UPDATE replaces the
// remembered profile when $14 is not null and gives the turn lease $15
// back; the turn's tokens are added to its tenant's usage of the day (a
// reserved turn's once it is finished).
const appendTurn = `
WITH next AS (
    UPDATE conversations c
    SET last_turn_number = last_turn_number + 1, updated_at = now(),
        profile = coalesce($14::jsonb, profile),
        turn_lease_until = CASE WHEN c.turn_lease_id = $15::uuid THEN NULL ELSE c.turn_lease_until END,
        turn_lease_id = CASE WHEN c.turn_lease_id = $15::uuid THEN NULL ELSE c.turn_lease_id END
    WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND ` + ownedConversation + `
    RETURNING c.tenant_id, c.id, c.last_turn_number
),
usage AS (
` + insertDailyUsage + `
    SELECT next.tenant_id, (now() AT TIME ZONE 'UTC')::date, ` + usageShard + `,
           $8::integer, $9::integer, $10::integer, $16::integer, coalesce($17::numeric, 0), 1 FROM next
    WHERE $5 <> 'streaming'
` + addToDailyUsage + `
)
INSERT INTO conversation_turns (
    tenant_id, conversation_id, turn_number, user_text, assistant_text, status, provider, model,
    input_tokens, output_tokens, total_tokens, latency_ms, referenced_nodes, metadata, cached_input_tokens, cost_usd, usage_estimated)
SELECT next.tenant_id, next.id, next.last_turn_number, $3, $4, $5, $6, $7,
       $8::integer, $9::integer, $10::integer, $11::bigint, $12::text[], $13::jsonb, $16::integer, $17::numeric, $18::boolean
FROM next
RETURNING turn_number`

// AppendTurn stores t under the conversation's next turn number and returns
// it. t.Number and t.CreatedAt are assigned by the store; an empty Status
// is conversation.TurnOK. A non-nil t.Profile replaces the conversation's
// profile in the same statement.
func (s *Store) AppendTurn(ctx context.Context, tenantID, conversationID string, t conversation.Turn) (int, error) {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return 0, err
	}
	metadata, err := encodeMetadata(t.Metadata)
	if err != nil {
		return 0, err
	}
	profile, err := encodeProfile(t.Profile)
	if err != nil {
		return 0, fmt.Errorf("append turn: %w", err)
	}
	status := t.Status
	if status == "" {
		status = conversation.TurnOK
	}
	if !status.Valid() {
		return 0, fmt.Errorf("append turn: %q is not a turn status", status)
	}
	var number int
	err = sc.queryRow(ctx, s.pool, appendTurn, tenantID, conversationID,
		t.UserText, t.AssistantText, string(status), t.Provider, t.Model,
		t.Usage.InputTokens, t.Usage.OutputTokens, t.Usage.TotalTokens, t.LatencyMS,
		nonNil(t.ReferencedNodes), metadata, profile, leaseParam(t.LeaseID), t.Usage.CachedInputTokens, t.Usage.CostUSD,
		t.Usage.Estimated,
	).Scan(&number)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, conversation.ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("append turn: %w", err)
	}
	return number, nil
}

func encodeMetadata(m conversation.TurnMetadata) (string, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("append turn: metadata: %w", err)
	}
	return string(b), nil
}

// mergeActiveNodes inserts or updates the context row in one statement; the
// merge itself is the SQL function merge_active_node_ids (migrations/), fed
// with the row as locked by ON CONFLICT, so concurrent merges each see the
// previous one's result. Selecting from conversations scopes the write to a
// conversation of this tenant; no row returned means there is none. Other
// keys of context_json are kept.
const mergeActiveNodes = `
INSERT INTO conversation_context AS cc (tenant_id, conversation_id, context_json, updated_at)
SELECT c.tenant_id, c.id,
       jsonb_build_object('activeNodeIds', merge_active_node_ids('[]'::jsonb, $3::text[], $4::integer)),
       now()
FROM conversations c
WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND ` + ownedConversation + `
ON CONFLICT (tenant_id, conversation_id) DO UPDATE
SET context_json = (CASE WHEN jsonb_typeof(cc.context_json) = 'object' THEN cc.context_json ELSE '{}'::jsonb END)
        || jsonb_build_object('activeNodeIds',
               merge_active_node_ids(cc.context_json -> 'activeNodeIds', $3::text[], $4::integer)),
    updated_at = now()
RETURNING 1`

// MergeActiveNodes merges ids into the context's activeNodeIds (recency
// order, capped at maxNodes; zero or less means
// conversation.DefaultMaxActiveNodes).
func (s *Store) MergeActiveNodes(ctx context.Context, tenantID, conversationID string, ids []string, maxNodes int) error {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return err
	}
	if maxNodes <= 0 {
		maxNodes = conversation.DefaultMaxActiveNodes
	}
	var one int
	err = sc.queryRow(ctx, s.pool, mergeActiveNodes, tenantID, conversationID, nonNil(ids), maxNodes).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return conversation.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("merge active nodes: %w", err)
	}
	return nil
}

func emptyContext() conversation.Context {
	return conversation.Context{ActiveNodeIDs: []string{}}
}

// nonNil keeps empty lists as [] (not null) in SQL and in JSON responses.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
