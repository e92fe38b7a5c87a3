// Package retention is the sweep function's code: the retention policy. The
// engine memory of conversations idle for N days (their conversation
// context, supplied context items and recorded turn stream) is deleted, and pending context
// requests past their expiry are marked expired. Turns are kept: they are
// the user's history, erased only through the conversation API.
//
// A sweep is safe to run twice at once: every batch claims its rows with
// FOR UPDATE SKIP LOCKED inside the statement that deletes or updates them,
// so each row is changed, and counted, by exactly one sweep.
package retention

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Defaults.
const (
	DefaultMaxIdle   = 30 * 24 * time.Hour
	DefaultBatchSize = 500
)

// Config tunes a sweep.
type Config struct {
	// ContextMaxIdle is how long a conversation may go without activity
	// before its context and supplied items are deleted; zero means
	// DefaultMaxIdle.
	ContextMaxIdle time.Duration
	// Now is the time the sweep judges by; zero means time.Now().
	Now time.Time
	// BatchSize bounds the rows one statement changes, so a large backlog
	// never holds many locks or one long transaction; zero means
	// DefaultBatchSize.
	BatchSize int
}

func (c Config) withDefaults() Config {
	if c.ContextMaxIdle <= 0 {
		c.ContextMaxIdle = DefaultMaxIdle
	}
	if c.Now.IsZero() {
		c.Now = time.Now()
	}
	if c.BatchSize <= 0 {
		c.BatchSize = DefaultBatchSize
	}
	return c
}

// Counts is what one sweep changed.
type Counts struct {
	ContextsDeleted      int64 `json:"contextsDeleted"`
	SuppliedItemsDeleted int64 `json:"suppliedItemsDeleted"`
	RequestsExpired      int64 `json:"requestsExpired"`
	StreamEventsDeleted  int64 `json:"streamEventsDeleted"`
	StreamsDeleted       int64 `json:"streamsDeleted"`
	// FollowersDeleted are lapsed places of stream followers whose
	// process ended without giving them back.
	FollowersDeleted int64 `json:"followersDeleted"`
}

// A conversation is idle when neither it (a turn bumps updated_at) nor the
// row itself changed since the cutoff; an item still fed into the prompts
// of an active conversation stays until the client removes it. The
// conversation row is share-locked so a turn starting now waits for this
// batch rather than racing it, and skipped if a turn holds it.
const deleteIdleContexts = `
WITH idle AS (
    SELECT cc.tenant_id, cc.conversation_id
    FROM conversation_context cc
    JOIN conversations c ON c.tenant_id = cc.tenant_id AND c.id = cc.conversation_id
    WHERE cc.updated_at < $1::timestamptz AND c.updated_at < $1::timestamptz
    LIMIT $2::integer
    FOR UPDATE OF cc SKIP LOCKED
    FOR SHARE OF c SKIP LOCKED
)
DELETE FROM conversation_context cc
USING idle
WHERE cc.tenant_id = idle.tenant_id AND cc.conversation_id = idle.conversation_id`

const deleteIdleSuppliedItems = `
WITH idle AS (
    SELECT s.id
    FROM supplied_context_items s
    JOIN conversations c ON c.tenant_id = s.tenant_id AND c.id = s.conversation_id
    WHERE s.last_used_at < $1::timestamptz AND c.updated_at < $1::timestamptz
    LIMIT $2::integer
    FOR UPDATE OF s SKIP LOCKED
    FOR SHARE OF c SKIP LOCKED
)
DELETE FROM supplied_context_items s
USING idle
WHERE s.id = idle.id`

// A recorded turn stream (its events, then its row) goes with the rest of
// an idle conversation's engine memory: the stored turn keeps the answer.
const (
	deleteIdleStreamEvents = `
WITH idle AS (
    SELECT e.tenant_id, e.conversation_id, e.seq
    FROM turn_stream_events e
    JOIN conversations c ON c.tenant_id = e.tenant_id AND c.id = e.conversation_id
    WHERE c.updated_at < $1::timestamptz
    LIMIT $2::integer
    FOR UPDATE OF e SKIP LOCKED
    FOR SHARE OF c SKIP LOCKED
)
DELETE FROM turn_stream_events e
USING idle
WHERE e.tenant_id = idle.tenant_id AND e.conversation_id = idle.conversation_id AND e.seq = idle.seq`
	deleteIdleStreams = `
WITH idle AS (
    SELECT s.tenant_id, s.conversation_id
    FROM turn_streams s
    JOIN conversations c ON c.tenant_id = s.tenant_id AND c.id = s.conversation_id
    WHERE c.updated_at < $1::timestamptz
    LIMIT $2::integer
    FOR UPDATE OF s SKIP LOCKED
    FOR SHARE OF c SKIP LOCKED
)
DELETE FROM turn_streams s
USING idle
WHERE s.tenant_id = idle.tenant_id AND s.conversation_id = idle.conversation_id`
)

// A stream follower's place lapses with its lease: its follower is gone.
const deleteLapsedFollowers = `
WITH lapsed AS (
    SELECT tenant_id, conversation_id, place
    FROM turn_stream_followers
    WHERE lease_until <= $1::timestamptz
    LIMIT $2::integer
    FOR UPDATE SKIP LOCKED
)
DELETE FROM turn_stream_followers f
USING lapsed
WHERE f.tenant_id = lapsed.tenant_id AND f.conversation_id = lapsed.conversation_id AND f.place = lapsed.place`

// A request expires at expires_at, as the chat turn judges it.
const expireDueRequests = `
WITH due AS (
    SELECT id
    FROM context_requests
    WHERE status = 'pending' AND expires_at <= $1::timestamptz
    LIMIT $2::integer
    FOR UPDATE SKIP LOCKED
)
UPDATE context_requests r
SET status = 'expired', resolved_at = $1::timestamptz
FROM due
WHERE r.id = due.id`

// Expired rows still present after a sweep: the same rule as the deletes,
// without the locks. Anything counted here is a row the retention period
// says must be gone.
const countExpiredContexts = `
SELECT
    (SELECT count(*) FROM conversation_context cc
     JOIN conversations c ON c.tenant_id = cc.tenant_id AND c.id = cc.conversation_id
     WHERE cc.updated_at < $1::timestamptz AND c.updated_at < $1::timestamptz)
  + (SELECT count(*) FROM supplied_context_items s
     JOIN conversations c ON c.tenant_id = s.tenant_id AND c.id = s.conversation_id
     WHERE s.last_used_at < $1::timestamptz AND c.updated_at < $1::timestamptz)
  + (SELECT count(*) FROM turn_stream_events e
     JOIN conversations c ON c.tenant_id = e.tenant_id AND c.id = e.conversation_id
     WHERE c.updated_at < $1::timestamptz)
  + (SELECT count(*) FROM turn_streams s
     JOIN conversations c ON c.tenant_id = s.tenant_id AND c.id = s.conversation_id
     WHERE c.updated_at < $1::timestamptz)`

// Removed is the number of rows the sweep deleted.
func (c Counts) Removed() int64 {
	return c.ContextsDeleted + c.SuppliedItemsDeleted + c.StreamEventsDeleted + c.StreamsDeleted + c.FollowersDeleted
}

// ExpiredRemaining counts the contexts and supplied items past the
// retention period that are still stored. After a sweep it is zero unless
// a turn held a row, or the sweep could not see the rows at all (a role
// that row-level security limits to one tenant sees none of them and so
// reports zero here too: the count is only as wide as the sweep's view).
func ExpiredRemaining(ctx context.Context, pool *pgxpool.Pool, cfg Config) (int64, error) {
	cfg = cfg.withDefaults()
	var n int64
	err := pool.QueryRow(ctx, countExpiredContexts, cfg.Now.Add(-cfg.ContextMaxIdle)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("retention: count expired rows: %w", err)
	}
	return n, nil
}

// retentionGroup is the role whose row-level security policies show every
// tenant's rows; the sweep's role is a member of it.
const retentionGroup = "regintel_retention"

// ErrNotSweepRole is returned when the sweep signs in as a role outside
// retentionGroup: row-level security would show it no tenant's rows, so it
// would delete nothing and report success.
var ErrNotSweepRole = errors.New("retention: the database role is not a member of " + retentionGroup +
	": the sweep would see no tenant's rows (sign in as the sweep's role, DB_SWEEP_USER of migrate)")

// CheckRole fails with ErrNotSweepRole unless the signed-in role can see
// every tenant's rows.
func CheckRole(ctx context.Context, pool *pgxpool.Pool) error {
	var member bool
	err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)
		AND pg_has_role(current_user, $1, 'MEMBER')`, retentionGroup).Scan(&member)
	if err != nil {
		return fmt.Errorf("retention: check role: %w", err)
	}
	if !member {
		return ErrNotSweepRole
	}
	return nil
}

// sweepStep is one statement of the policy, run in batches.
type sweepStep struct {
	name  string
	sql   string
	count func(*Counts) *int64
	// byExpiry: the cutoff is now (an expiry), else the idle cutoff.
	byExpiry bool
}

var sweepSteps = []sweepStep{
	{"delete idle contexts", deleteIdleContexts, func(c *Counts) *int64 { return &c.ContextsDeleted }, false},
	{"delete idle supplied items", deleteIdleSuppliedItems, func(c *Counts) *int64 { return &c.SuppliedItemsDeleted }, false},
	{"delete idle stream events", deleteIdleStreamEvents, func(c *Counts) *int64 { return &c.StreamEventsDeleted }, false},
	{"delete idle streams", deleteIdleStreams, func(c *Counts) *int64 { return &c.StreamsDeleted }, false},
	{"delete lapsed stream followers", deleteLapsedFollowers, func(c *Counts) *int64 { return &c.FollowersDeleted }, true},
	{"expire context requests", expireDueRequests, func(c *Counts) *int64 { return &c.RequestsExpired }, true},
}

var deletedTable = regexp.MustCompile(`(?m)^DELETE FROM (\w+)`)

// SweptTables names the tables the sweep deletes rows from, read from its
// statements.
func SweptTables() []string {
	var out []string
	for _, step := range sweepSteps {
		if m := deletedTable.FindStringSubmatch(step.sql); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// Sweep applies the policy once and reports what it changed. On error the
// counts so far are returned with it; committed batches stay committed.
func Sweep(ctx context.Context, pool *pgxpool.Pool, cfg Config) (Counts, error) {
	cfg = cfg.withDefaults()
	idleSince := cfg.Now.Add(-cfg.ContextMaxIdle)
	var counts Counts
	var errs []error
	for _, step := range sweepSteps {
		cutoff := idleSince
		if step.byExpiry {
			cutoff = cfg.Now
		}
		// Each step runs to completion on its own: a failing one does not
		// stop the others.
		if err := inBatches(ctx, pool, step.sql, cutoff, cfg.BatchSize, step.count(&counts)); err != nil {
			errs = append(errs, fmt.Errorf("retention: %s: %w", step.name, err))
		}
	}
	return counts, errors.Join(errs...)
}

// inBatches runs sql until a batch comes back short: then every row that
// qualified was either taken by this sweep or is locked by another one,
// which will finish it.
func inBatches(ctx context.Context, pool *pgxpool.Pool, sql string, cutoff time.Time, batchSize int, count *int64) error {
	for {
		tag, err := pool.Exec(ctx, sql, cutoff, batchSize)
		if err != nil {
			return err
		}
		*count += tag.RowsAffected()
		if tag.RowsAffected() < int64(batchSize) {
			return nil
		}
	}
}
