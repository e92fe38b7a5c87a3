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
	"time"

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

// ErrInvalidTenant is returned for a tenant id that is not a uuid; the auth
// layer maps tenant claims to uuids before they reach the store.
var ErrInvalidTenant = errors.New("conversation store: tenant id is not a uuid")

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
	if !isUUID(c.TenantID) {
		return conversation.Conversation{}, ErrInvalidTenant
	}
	if c.OwnerID == "" {
		return conversation.Conversation{}, conversation.ErrNoOwner
	}
	sc := callScope{tenant: c.TenantID, owner: c.OwnerID}
	var id *string
	if c.ID != "" {
		if !isUUID(c.ID) {
			return conversation.Conversation{}, errors.New("create conversation: id is not a uuid")
		}
		id = &c.ID
	}
	profile, err := encodeProfile(c.Profile)
	if err != nil {
		return conversation.Conversation{}, fmt.Errorf("create conversation: %w", err)
	}
	out, err := scanConversation(sc.queryRow(ctx, s.pool, insertConversation,
		id, c.TenantID, c.OwnerID, c.Title, nonNil(c.Jurisdictions), c.Archived, profile), c.TenantID)
	if err != nil {
		return conversation.Conversation{}, fmt.Errorf("create conversation: %w", err)
	}
	return out, nil
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
	return s.loadTurn(ctx, tenantID, conversationID, historyTurns, 0)
}

// StartTurn is LoadTurnState with the turn lease taken first and the
// tenant's usage today read last, in the same batch. A usage read that
// fails counts as no usage: the cap is additive, the turn is not.
func (s *Store) StartTurn(ctx context.Context, tenantID, conversationID string, start conversation.TurnStart) (conversation.TurnState, error) {
	leaseFor := start.LeaseFor
	if leaseFor <= 0 {
		leaseFor = conversation.DefaultTurnLease
	}
	return s.loadTurn(ctx, tenantID, conversationID, start.HistoryTurns, leaseFor)
}

// takeTurnLease takes the lease unless an unexpired one is held; no row
// means it is held or the conversation is not the caller's.
const takeTurnLease = `
UPDATE conversations c
SET turn_lease_id = gen_random_uuid(), turn_lease_until = now() + $3::bigint * interval '1 millisecond'
WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND ` + ownedConversation + `
  AND (c.turn_lease_until IS NULL OR c.turn_lease_until <= now())
RETURNING c.turn_lease_id::text`

const selectTenantTokensToday = `
SELECT coalesce(sum(total_tokens), 0) FROM tenant_daily_usage
WHERE tenant_id = $1::uuid AND day = (now() AT TIME ZONE 'UTC')::date`

// loadTurn loads a turn's state; with leaseFor > 0 it is StartTurn.
func (s *Store) loadTurn(ctx context.Context, tenantID, conversationID string, historyTurns int, leaseFor time.Duration) (conversation.TurnState, error) {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.TurnState{}, err
	}
	historyTurns = max(historyTurns, 0)
	leasing := leaseFor > 0

	batch := sc.newBatch()
	if leasing {
		batch.Queue(takeTurnLease, tenantID, conversationID, leaseFor.Milliseconds())
	}
	batch.Queue(selectConversation, tenantID, conversationID)
	batch.Queue(selectRecentTurns, tenantID, conversationID, historyTurns)
	batch.Queue(selectContext, tenantID, conversationID)
	queueHandoff(batch, tenantID, conversationID)
	if leasing {
		batch.Queue(selectTenantTokensToday, tenantID)
	}
	results, err := send(ctx, s.pool, batch)
	if err != nil {
		return conversation.TurnState{}, fmt.Errorf("load conversation: %w", err)
	}
	defer results.Close()

	state := conversation.TurnState{Context: emptyContext()}
	var leaseErr error
	if leasing {
		leaseErr = results.QueryRow().Scan(&state.LeaseID)
	}
	state.Conversation, err = scanConversation(results.QueryRow(), tenantID)
	if errors.Is(err, pgx.ErrNoRows) {
		return conversation.TurnState{}, conversation.ErrNotFound
	}
	if err != nil {
		return conversation.TurnState{}, fmt.Errorf("load conversation: %w", err)
	}
	switch {
	case errors.Is(leaseErr, pgx.ErrNoRows):
		return conversation.TurnState{}, conversation.ErrTurnInProgress
	case leaseErr != nil:
		return conversation.TurnState{}, fmt.Errorf("take turn lease: %w", leaseErr)
	}

	rows, err := results.Query()
	if err != nil {
		return conversation.TurnState{}, fmt.Errorf("load history: %w", err)
	}
	state.History, err = pgx.CollectRows(rows, scanTurn)
	if err != nil {
		return conversation.TurnState{}, fmt.Errorf("load history: %w", err)
	}
	if state.History == nil {
		state.History = []conversation.Turn{}
	}

	var raw []byte
	switch err := results.QueryRow().Scan(&raw); {
	case errors.Is(err, pgx.ErrNoRows):
		// No context yet: the empty context.
	case err != nil:
		state.ContextErr = fmt.Errorf("load conversation context: %w", err)
	default:
		loaded, err := decodeContext(raw)
		if err != nil {
			state.ContextErr = err
		} else {
			state.Context = loaded
		}
	}
	if handoff, err := readHandoff(results, tenantID); err != nil {
		state.HandoffErr = err
	} else {
		state.Handoff = &handoff
	}
	if leasing {
		_ = results.QueryRow().Scan(&state.TenantTokensToday)
	}
	return state, nil
}

const endTurnLease = `
UPDATE conversations c SET turn_lease_id = NULL, turn_lease_until = NULL
WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND ` + ownedConversation + ` AND c.turn_lease_id = $3::uuid`

// EndTurn gives back the lease if it is still leaseID.
func (s *Store) EndTurn(ctx context.Context, tenantID, conversationID, leaseID string) error {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil || !isUUID(leaseID) {
		return err
	}
	if _, err := sc.exec(ctx, s.pool, endTurnLease, tenantID, conversationID, leaseID); err != nil {
		return fmt.Errorf("end turn: %w", err)
	}
	return nil
}

// TenantTokensToday returns the tenant's usage on the current UTC day.
func (s *Store) TenantTokensToday(ctx context.Context, tenantID string) (int64, error) {
	sc, err := scopeOf(ctx, tenantID)
	if err != nil {
		return 0, err
	}
	var tokens int64
	if err := sc.queryRow(ctx, s.pool, selectTenantTokensToday, tenantID).Scan(&tokens); err != nil {
		return 0, fmt.Errorf("tenant usage: %w", err)
	}
	return tokens, nil
}

func scanTurn(row pgx.CollectableRow) (conversation.Turn, error) {
	var t conversation.Turn
	var metadata []byte
	err := row.Scan(&t.Number, &t.UserText, &t.AssistantText, &t.Status, &t.Provider, &t.Model,
		&t.Usage.InputTokens, &t.Usage.OutputTokens, &t.Usage.TotalTokens, &t.LatencyMS,
		&t.ReferencedNodes, &metadata, &t.CreatedAt)
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
    INSERT INTO tenant_daily_usage AS u (tenant_id, day, input_tokens, output_tokens, total_tokens, turns)
    SELECT next.tenant_id, (now() AT TIME ZONE 'UTC')::date, $8::integer, $9::integer, $10::integer, 1 FROM next
    WHERE $5 <> 'streaming'
    ON CONFLICT (tenant_id, day) DO UPDATE SET
        input_tokens = u.input_tokens + EXCLUDED.input_tokens,
        output_tokens = u.output_tokens + EXCLUDED.output_tokens,
        total_tokens = u.total_tokens + EXCLUDED.total_tokens,
        turns = u.turns + 1,
        updated_at = now()
)
INSERT INTO conversation_turns (
    tenant_id, conversation_id, turn_number, user_text, assistant_text, status, provider, model,
    input_tokens, output_tokens, total_tokens, latency_ms, referenced_nodes, metadata)
SELECT next.tenant_id, next.id, next.last_turn_number, $3, $4, $5, $6, $7,
       $8::integer, $9::integer, $10::integer, $11::bigint, $12::text[], $13::jsonb
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
		nonNil(t.ReferencedNodes), metadata, profile, leaseParam(t.LeaseID),
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

// leaseParam is a lease id as a query parameter: null when there is none.
func leaseParam(id string) *string {
	if !isUUID(id) {
		return nil
	}
	return &id
}

// ReserveTurn stores the question of a new turn, status streaming, under
// the next number: the appendTurn statement with an empty answer, which
// adds no tokens to the tenant's day.
func (s *Store) ReserveTurn(ctx context.Context, tenantID, conversationID string, t conversation.Turn) (int, error) {
	started := conversation.Turn{UserText: t.UserText, Status: conversation.TurnStreaming, Profile: t.Profile}
	return s.AppendTurn(ctx, tenantID, conversationID, started)
}

const turnColumns = `turn_number, user_text, assistant_text, status, provider, model,
       input_tokens, output_tokens, total_tokens, latency_ms, referenced_nodes, metadata, created_at`

// retryTurn restarts the conversation's last turn if it failed or was
// interrupted. The row lock makes a concurrent second retry see the
// streaming status and match nothing.
const retryTurn = `
UPDATE conversation_turns
SET status = 'streaming', assistant_text = ''
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid
  AND turn_number = (SELECT c.last_turn_number FROM conversations c
                     WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND ` + ownedConversation + `)
  AND status IN ('error', 'interrupted')
RETURNING ` + turnColumns

const conversationExists = `SELECT 1 FROM conversations c WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND ` + ownedConversation

// RetryTurn restarts the last turn when it failed or was interrupted. Only
// a refusal costs a second round trip, to tell ErrNotFound from
// ErrNotRetryable.
func (s *Store) RetryTurn(ctx context.Context, tenantID, conversationID string) (conversation.Turn, error) {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.Turn{}, err
	}
	turns, err := query(ctx, s.pool, sc, scanTurn, retryTurn, tenantID, conversationID)
	if err != nil {
		return conversation.Turn{}, fmt.Errorf("retry turn: %w", err)
	}
	if len(turns) == 1 {
		return turns[0], nil
	}
	var one int
	switch err := sc.queryRow(ctx, s.pool, conversationExists, tenantID, conversationID).Scan(&one); {
	case errors.Is(err, pgx.ErrNoRows):
		return conversation.Turn{}, conversation.ErrNotFound
	case err != nil:
		return conversation.Turn{}, fmt.Errorf("retry turn: %w", err)
	}
	return conversation.Turn{}, conversation.ErrNotRetryable
}

// finishTurn stores a reserved turn's outcome, touches its conversation,
// gives the turn lease $14 back and adds the turn's tokens to its tenant's
// usage of the day.
const finishTurn = `
WITH finished AS (
    UPDATE conversation_turns
    SET assistant_text = $4, status = $5, provider = $6, model = $7,
        input_tokens = $8::integer, output_tokens = $9::integer, total_tokens = $10::integer,
        latency_ms = $11::bigint, referenced_nodes = $12::text[], metadata = $13::jsonb
    WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid AND turn_number = $3::integer` + ofOwnedConversation + `
    RETURNING tenant_id, conversation_id
),
touched AS (
    UPDATE conversations c SET updated_at = now(),
        turn_lease_until = CASE WHEN c.turn_lease_id = $14::uuid THEN NULL ELSE c.turn_lease_until END,
        turn_lease_id = CASE WHEN c.turn_lease_id = $14::uuid THEN NULL ELSE c.turn_lease_id END
    FROM finished
    WHERE c.tenant_id = finished.tenant_id AND c.id = finished.conversation_id
    RETURNING c.tenant_id
),
usage AS (
    INSERT INTO tenant_daily_usage AS u (tenant_id, day, input_tokens, output_tokens, total_tokens, turns)
    SELECT touched.tenant_id, (now() AT TIME ZONE 'UTC')::date, $8::integer, $9::integer, $10::integer, 1 FROM touched
    ON CONFLICT (tenant_id, day) DO UPDATE SET
        input_tokens = u.input_tokens + EXCLUDED.input_tokens,
        output_tokens = u.output_tokens + EXCLUDED.output_tokens,
        total_tokens = u.total_tokens + EXCLUDED.total_tokens,
        turns = u.turns + 1,
        updated_at = now()
)
SELECT 1 FROM touched`

// FinishTurn stores the outcome of turn t.Number and, with activeNodes,
// merges them into the context: both statements in one pipelined batch,
// which Postgres runs as one implicit transaction.
func (s *Store) FinishTurn(ctx context.Context, tenantID, conversationID string, t conversation.Turn, activeNodes []string, maxNodes int) error {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return err
	}
	if !t.Status.Valid() || t.Status == conversation.TurnStreaming {
		return fmt.Errorf("finish turn: %q is not a final turn status", t.Status)
	}
	metadata, err := encodeMetadata(t.Metadata)
	if err != nil {
		return err
	}
	if maxNodes <= 0 {
		maxNodes = conversation.DefaultMaxActiveNodes
	}
	batch := sc.newBatch()
	batch.Queue(finishTurn, tenantID, conversationID, t.Number,
		t.AssistantText, string(t.Status), t.Provider, t.Model,
		t.Usage.InputTokens, t.Usage.OutputTokens, t.Usage.TotalTokens, t.LatencyMS,
		nonNil(t.ReferencedNodes), metadata, leaseParam(t.LeaseID))
	if len(activeNodes) > 0 {
		batch.Queue(mergeActiveNodes, tenantID, conversationID, activeNodes, maxNodes)
	}
	results, err := send(ctx, s.pool, batch)
	if err != nil {
		return fmt.Errorf("finish turn: %w", err)
	}
	defer results.Close()
	var one int
	err = results.QueryRow().Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return conversation.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("finish turn: %w", err)
	}
	if len(activeNodes) > 0 {
		if err := results.QueryRow().Scan(&one); err != nil {
			return fmt.Errorf("finish turn: merge active nodes: %w", err)
		}
	}
	return results.Close()
}
