package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"regintel/shared/conversation"
)

// A turn costs two round trips: StartTurn (or StartConversation) before the
// first byte, FinishTurn after the answer. Each is one pipelined batch,
// which Postgres runs as one implicit transaction.

// takeTurnLease takes the lease $3 unless an unexpired one is held; no row
// means it is held or the conversation is not the caller's. The lease id
// is chosen by the store, so the reservation later in the same batch can
// require it.
const takeTurnLease = `
UPDATE conversations c
SET turn_lease_id = $3::uuid, turn_lease_until = now() + $4::bigint * interval '1 millisecond'
WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND ` + ownedConversation + `
  AND (c.turn_lease_until IS NULL OR c.turn_lease_until <= now())
RETURNING 1`

// usageShard picks one of the 16 rows of a tenant's daily usage from the
// conversation's id (the column id of the one row source it is selected
// from), so concurrent turns of one tenant seldom update the same row
// (migrations/00014).
const usageShard = "(get_byte(uuid_send(id), 15) % 16)::smallint"

const selectTenantTokensToday = `
SELECT coalesce(sum(total_tokens), 0) FROM tenant_daily_usage
WHERE tenant_id = $1::uuid AND day = (now() AT TIME ZONE 'UTC')::date`

// mayReserve holds when the conversation c ($1, $2) is held by the lease $3,
// the tenant is under the limit $4 (null: none) and no context request of
// the conversation is pending.
const mayReserve = `c.tenant_id = $1::uuid AND c.id = $2::uuid AND ` + ownedConversation + `
      AND c.turn_lease_id = $3::uuid
      AND ($4::bigint IS NULL OR (` + selectTenantTokensToday + `) < $4::bigint)
      AND NOT EXISTS (SELECT 1 FROM context_requests r
                      WHERE r.tenant_id = $1::uuid AND r.conversation_id = $2::uuid AND r.status = 'pending')`

// reserveStartedTurn stores the question $5 as the next turn, status
// streaming, replacing the profile when $6 is not null.
const reserveStartedTurn = `
WITH next AS (
    UPDATE conversations c
    SET last_turn_number = last_turn_number + 1, updated_at = now(), profile = coalesce($6::jsonb, profile)
    WHERE ` + mayReserve + `
    RETURNING c.tenant_id, c.id, c.last_turn_number
)
INSERT INTO conversation_turns (tenant_id, conversation_id, turn_number, user_text, status)
SELECT next.tenant_id, next.id, next.last_turn_number, $5, 'streaming' FROM next
RETURNING ` + turnColumns

// restartFailedTurn is retryTurn under the conditions of mayReserve.
const restartFailedTurn = `
UPDATE conversation_turns
SET status = 'streaming', assistant_text = ''
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid
  AND turn_number = (SELECT c.last_turn_number FROM conversations c WHERE ` + mayReserve + `)
  AND status IN ('error', 'interrupted')
RETURNING ` + turnColumns

// uniqueViolation is Postgres's SQLSTATE for a duplicate key.
const uniqueViolation = "23505"

// restartFinishedTurn is restartFailedTurn for a regeneration: the last
// turn is restarted whatever it ended with.
const restartFinishedTurn = `
UPDATE conversation_turns
SET status = 'streaming', assistant_text = ''
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid
  AND turn_number = (SELECT c.last_turn_number FROM conversations c WHERE ` + mayReserve + `)
  AND status <> 'streaming'
RETURNING ` + turnColumns

// StartTurn loads the turn's state, takes the lease, reads the tenant's
// usage (given a limit) and reserves the turn (when asked) in one batch.
func (s *Store) StartTurn(ctx context.Context, tenantID, conversationID string, start conversation.TurnStart) (conversation.TurnState, error) {
	return s.loadTurn(ctx, tenantID, conversationID, start, uuid.NewString())
}

// loadTurn loads a turn's state; with a leaseID it is StartTurn. The
// reservation comes last, so the history read before it does not hold it.
func (s *Store) loadTurn(ctx context.Context, tenantID, conversationID string, start conversation.TurnStart, leaseID string) (conversation.TurnState, error) {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.TurnState{}, err
	}
	leasing := leaseID != ""
	batch := sc.newBatch()
	if leasing {
		batch.Queue(takeTurnLease, tenantID, conversationID, leaseID, leaseDuration(start.LeaseFor).Milliseconds())
	}
	batch.Queue(selectConversation, tenantID, conversationID)
	batch.Queue(selectRecentTurns, tenantID, conversationID, max(start.HistoryTurns, 0))
	batch.Queue(selectContext, tenantID, conversationID)
	queueHandoff(batch, tenantID, conversationID)
	reserving, err := queueStart(batch, tenantID, conversationID, start, leaseID)
	if err != nil {
		return conversation.TurnState{}, err
	}
	results, err := send(ctx, s.pool, batch)
	if err != nil {
		return conversation.TurnState{}, fmt.Errorf("load conversation: %w", err)
	}
	defer results.Close()

	state := conversation.TurnState{Context: emptyContext()}
	var leaseErr error
	if leasing {
		var one int
		leaseErr = results.QueryRow().Scan(&one)
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
	state.LeaseID = leaseID
	if err := readTurnState(results, tenantID, &state); err != nil {
		return conversation.TurnState{}, err
	}
	if err := readStart(results, start, reserving, &state); err != nil {
		return conversation.TurnState{}, err
	}
	return state, results.Close()
}

// readTurnState reads the history, context and handoff results into state.
// The context and handoff are reported in ContextErr and HandoffErr.
func readTurnState(results pgx.BatchResults, tenantID string, state *conversation.TurnState) error {
	rows, err := results.Query()
	if err != nil {
		return fmt.Errorf("load history: %w", err)
	}
	state.History, err = pgx.CollectRows(rows, scanTurn)
	if err != nil {
		return fmt.Errorf("load history: %w", err)
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
	return nil
}

// queueStart queues the usage read (given a limit) and the reservation
// (when asked, under a lease) and says whether it queued a reservation.
func queueStart(batch *pgx.Batch, tenantID, conversationID string, start conversation.TurnStart, leaseID string) (bool, error) {
	if start.DailyTokenLimit > 0 {
		batch.Queue(selectTenantTokensToday, tenantID)
	}
	if leaseID == "" {
		return false, nil
	}
	limit := limitParam(start.DailyTokenLimit)
	switch {
	case start.Retry && start.Regenerate:
		batch.Queue(restartFinishedTurn, tenantID, conversationID, leaseID, limit)
	case start.Retry:
		batch.Queue(restartFailedTurn, tenantID, conversationID, leaseID, limit)
	case start.Reserve != nil:
		profile, err := encodeProfile(start.Reserve.Profile)
		if err != nil {
			return false, fmt.Errorf("start turn: %w", err)
		}
		batch.Queue(reserveStartedTurn, tenantID, conversationID, leaseID, limit, start.Reserve.UserText, profile)
	default:
		return false, nil
	}
	return true, nil
}

// readStart reads what queueStart queued. A usage read that fails counts
// as no usage: the cap is additive, the turn is not.
func readStart(results pgx.BatchResults, start conversation.TurnStart, reserving bool, state *conversation.TurnState) error {
	if start.DailyTokenLimit > 0 {
		_ = results.QueryRow().Scan(&state.TenantTokensToday)
	}
	if !reserving {
		return nil
	}
	rows, err := results.Query()
	if err != nil {
		return fmt.Errorf("reserve turn: %w", err)
	}
	reserved, err := pgx.CollectRows(rows, scanTurn)
	if err != nil {
		return fmt.Errorf("reserve turn: %w", err)
	}
	if len(reserved) == 1 {
		state.Reserved = &reserved[0]
	}
	return nil
}

// insertLeasedConversation is insertConversation holding the turn lease
// $8 from the start, unless the tenant reached the limit $10.
const insertLeasedConversation = `
INSERT INTO conversations (id, tenant_id, owner_id, title, jurisdictions, archived, profile, turn_lease_id, turn_lease_until)
SELECT coalesce($1::uuid, gen_random_uuid()), $2::uuid, $3, $4, $5::text[], $6, $7::jsonb,
       $8::uuid, now() + $9::bigint * interval '1 millisecond'
WHERE $10::bigint IS NULL OR (SELECT coalesce(sum(total_tokens), 0) FROM tenant_daily_usage
                              WHERE tenant_id = $2::uuid AND day = (now() AT TIME ZONE 'UTC')::date) < $10::bigint
RETURNING ` + conversationColumns

// StartConversation creates c holding the lease and reserves its first
// turn, in one batch. At the limit no row is inserted and the state names
// no conversation.
func (s *Store) StartConversation(ctx context.Context, c conversation.Conversation, start conversation.TurnStart) (conversation.TurnState, error) {
	if c.ID == "" {
		// Chosen here, so the reservation can name it.
		c.ID = uuid.NewString()
	}
	sc, id, profile, err := newConversationParams(c)
	if err != nil {
		return conversation.TurnState{}, err
	}
	leaseID := uuid.NewString()
	limit := limitParam(start.DailyTokenLimit)
	batch := sc.newBatch()
	if start.DailyTokenLimit > 0 {
		batch.Queue(selectTenantTokensToday, c.TenantID)
	}
	batch.Queue(insertLeasedConversation, id, c.TenantID, c.OwnerID, c.Title, nonNil(c.Jurisdictions), c.Archived, profile,
		leaseID, leaseDuration(start.LeaseFor).Milliseconds(), limit)
	if start.Reserve != nil {
		batch.Queue(reserveStartedTurn, c.TenantID, c.ID, leaseID, nil, start.Reserve.UserText, nil)
	}
	results, err := send(ctx, s.pool, batch)
	if err != nil {
		return conversation.TurnState{}, fmt.Errorf("start conversation: %w", err)
	}
	defer results.Close()
	state := conversation.TurnState{Context: emptyContext(), History: []conversation.Turn{},
		Handoff: &conversation.HandoffState{Items: []conversation.SuppliedItem{}}}
	if start.DailyTokenLimit > 0 {
		_ = results.QueryRow().Scan(&state.TenantTokensToday)
	}
	state.Conversation, err = scanConversation(results.QueryRow(), c.TenantID)
	if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code == uniqueViolation {
		return conversation.TurnState{}, fmt.Errorf("start conversation: %w", conversation.ErrIDTaken)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return conversation.TurnState{TenantTokensToday: state.TenantTokensToday}, nil
	}
	if err != nil {
		return conversation.TurnState{}, fmt.Errorf("start conversation: %w", err)
	}
	state.LeaseID = leaseID
	if start.Reserve != nil {
		rows, err := results.Query()
		if err != nil {
			return conversation.TurnState{}, fmt.Errorf("reserve turn: %w", err)
		}
		reserved, err := pgx.CollectExactlyOneRow(rows, scanTurn)
		if err != nil {
			return conversation.TurnState{}, fmt.Errorf("reserve turn: %w", err)
		}
		state.Reserved = &reserved
	}
	return state, results.Close()
}

func leaseDuration(d time.Duration) time.Duration {
	if d <= 0 {
		return conversation.DefaultTurnLease
	}
	return d
}

// limitParam is a daily token limit as a query parameter: null for none.
func limitParam(limit int64) *int64 {
	if limit <= 0 {
		return nil
	}
	return &limit
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
       input_tokens, output_tokens, total_tokens, latency_ms, referenced_nodes, metadata, created_at,
       cached_input_tokens, cost_usd::float8, usage_estimated`

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
        latency_ms = $11::bigint, referenced_nodes = $12::text[], metadata = $13::jsonb,
        cached_input_tokens = $15::integer, cost_usd = $16::numeric, usage_estimated = $17::boolean
    WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid AND turn_number = $3::integer` + ofOwnedConversation + `
    RETURNING tenant_id, conversation_id
),
-- updated_at was set when the turn was reserved; leaving it (and every
-- other indexed column) alone lets this be a heap-only update.
touched AS (
    UPDATE conversations c SET
        turn_lease_until = CASE WHEN c.turn_lease_id = $14::uuid THEN NULL ELSE c.turn_lease_until END,
        turn_lease_id = CASE WHEN c.turn_lease_id = $14::uuid THEN NULL ELSE c.turn_lease_id END
    FROM finished
    WHERE c.tenant_id = finished.tenant_id AND c.id = finished.conversation_id
    RETURNING c.tenant_id, c.id
),
usage AS (
` + insertDailyUsage + `
    SELECT touched.tenant_id, (now() AT TIME ZONE 'UTC')::date, ` + usageShard + `,
           $8::integer, $9::integer, $10::integer, $15::integer, coalesce($16::numeric, 0), 1 FROM touched
` + addToDailyUsage + `
)
SELECT 1 FROM touched`

// saveTurnContext merges the active nodes and marks the used items in a
// function of its own (migrations/00011): its exception block is a
// savepoint, so a failure there is returned as text instead of undoing
// the turn stored before it in the same transaction.
const saveTurnContext = `SELECT regintel_save_turn_context($1::uuid, $2::uuid, $3::text[], $4::integer, $5::uuid[])`

// FinishTurn stores the outcome of turn t.Number and applies f, in one
// pipelined batch.
func (s *Store) FinishTurn(ctx context.Context, tenantID, conversationID string, t conversation.Turn, f conversation.TurnFinish) error {
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
	maxNodes := f.MaxNodes
	if maxNodes <= 0 {
		maxNodes = conversation.DefaultMaxActiveNodes
	}
	used := validUUIDs(f.UsedItems)
	withContext := len(f.ActiveNodes) > 0 || len(used) > 0
	batch := sc.newBatch()
	batch.Queue(finishTurn, tenantID, conversationID, t.Number,
		t.AssistantText, string(t.Status), t.Provider, t.Model,
		t.Usage.InputTokens, t.Usage.OutputTokens, t.Usage.TotalTokens, t.LatencyMS,
		nonNil(t.ReferencedNodes), metadata, leaseParam(t.LeaseID), t.Usage.CachedInputTokens, t.Usage.CostUSD, t.Usage.Estimated)
	if withContext {
		batch.Queue(saveTurnContext, tenantID, conversationID, nonNil(f.ActiveNodes), maxNodes, used)
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
	var contextErr *string
	if withContext {
		if err := results.QueryRow().Scan(&contextErr); err != nil {
			return fmt.Errorf("finish turn: %w", err)
		}
	}
	if err := results.Close(); err != nil {
		return fmt.Errorf("finish turn: %w", err)
	}
	if contextErr != nil {
		return fmt.Errorf("%w: %s", conversation.ErrContextNotSaved, *contextErr)
	}
	return nil
}

// validUUIDs keeps the ids that can name a row.
func validUUIDs(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if isUUID(id) {
			out = append(out, id)
		}
	}
	return out
}
