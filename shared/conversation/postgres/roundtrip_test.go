package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"regintel/shared/conversation"
	convpg "regintel/shared/conversation/postgres"
	"regintel/shared/pgpool/pgtest"
)

// roundTrips counts what the store sends: each query outside a batch and
// each batch is one network round trip.
type roundTrips struct {
	mu      sync.Mutex
	queries int
	batches int
	inBatch bool
}

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.inBatch {
		r.queries++
	}
	return ctx
}

func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches++
	r.inBatch = true
	return ctx
}

func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inBatch = false
}

// wantOneBatch fails unless exactly one batch and no query went out since
// the last take: the statement that sets the row-level security scope goes
// in the same round trip as the work.
func (r *roundTrips) wantOneBatch(t *testing.T, op string) {
	t.Helper()
	if q, b := r.take(); q != 0 || b != 1 {
		t.Errorf("%s sent %d queries and %d batches, want one batch", op, q, b)
	}
}

func (r *roundTrips) take() (queries, batches int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	queries, batches = r.queries, r.batches
	r.queries, r.batches = 0, 0
	return queries, batches
}

// tracedPool is a one-connection pool on a migrated database that counts
// its round trips, in the production pool's exec mode (which batches
// differently).
func tracedPool(t *testing.T, ctx context.Context) (*pgxpool.Pool, *roundTrips) {
	t.Helper()
	migrated := pgtest.NewMigratedPool(t, 1)
	cfg, err := pgxpool.ParseConfig(migrated.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1
	cfg.ConnConfig.DefaultQueryExecMode = migrated.Config().ConnConfig.DefaultQueryExecMode
	tracer := &roundTrips{}
	cfg.ConnConfig.Tracer = tracer
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, tracer
}

func TestEachOperationIsOneRoundTrip(t *testing.T) {
	ctx := conversation.WithOwner(context.Background(), "u")
	pool, tracer := tracedPool(t, ctx)
	if err := pool.Ping(ctx); err != nil { // connect before counting
		t.Fatal(err)
	}
	tracer.take()

	store := convpg.New(pool)
	tenant := uuid.NewString()
	c, err := store.CreateConversation(ctx, conversation.Conversation{TenantID: tenant, OwnerID: "u"})
	if err != nil {
		t.Fatal(err)
	}
	check := func(op string) { t.Helper(); tracer.wantOneBatch(t, op) }
	check("CreateConversation")
	checkSimpleOperations(t, ctx, store, tenant, c.ID, check)
	tracer.take()
	checkStreamedTurn(t, ctx, store, tenant, c.ID, check)
}

// checkSimpleOperations runs each single store call on conversation id,
// with check after each.
func checkSimpleOperations(t *testing.T, ctx context.Context, store *convpg.Store, tenant, id string, check func(op string)) {
	t.Helper()
	if _, err := store.AppendTurn(ctx, tenant, id, conversation.Turn{UserText: "q"}); err != nil {
		t.Fatal(err)
	}
	check("AppendTurn")
	// Remembering the profile rides in the same statement as the turn.
	profile := conversation.Profile{PersonaType: "employee", Jurisdictions: []string{"IE"}}
	if _, err := store.AppendTurn(ctx, tenant, id, conversation.Turn{UserText: "q2", Profile: &profile}); err != nil {
		t.Fatal(err)
	}
	check("AppendTurn with a profile")
	if err := store.MergeActiveNodes(ctx, tenant, id, []string{"A", "B"}, 3); err != nil {
		t.Fatal(err)
	}
	check("MergeActiveNodes")
	// A streamed turn: its number is taken at the start, its outcome and
	// concepts are stored together at the end.
	n, err := store.ReserveTurn(ctx, tenant, id, conversation.Turn{UserText: "q3", Profile: &profile})
	if err != nil {
		t.Fatal(err)
	}
	check("ReserveTurn")
	if err := store.FinishTurn(ctx, tenant, id, conversation.Turn{Number: n, Status: conversation.TurnError}, conversation.TurnFinish{ActiveNodes: []string{"C"}, MaxNodes: 3}); err != nil {
		t.Fatal(err)
	}
	check("FinishTurn with concepts")
	if _, err := store.RetryTurn(ctx, tenant, id); err != nil {
		t.Fatal(err)
	}
	check("RetryTurn")
	st, err := store.LoadTurnState(ctx, tenant, id, 5)
	if err != nil || len(st.History) != 3 || len(st.Context.ActiveNodeIDs) != 3 || st.Conversation.Profile == nil || st.Handoff == nil {
		t.Fatalf("LoadTurnState = %+v, %v", st, err)
	}
	check("LoadTurnState")
	// A turn's load takes its lease and reads the tenant's usage in the same batch.
	started, err := store.StartTurn(ctx, tenant, id, conversation.TurnStart{HistoryTurns: 5, LeaseFor: time.Minute})
	if err != nil || started.LeaseID == "" || len(started.History) != 3 {
		t.Fatalf("StartTurn = %+v, %v", started, err)
	}
	check("StartTurn")
	if err := store.EndTurn(ctx, tenant, id, started.LeaseID); err != nil {
		t.Fatal(err)
	}
}

// checkStreamedTurn runs the calls of a streamed turn as the engine makes
// them, and starts a new conversation, with check after each.
func checkStreamedTurn(t *testing.T, ctx context.Context, store *convpg.Store, tenant, id string, check func(op string)) {
	t.Helper()
	profile := conversation.Profile{PersonaType: "employee", Jurisdictions: []string{"IE"}}
	// Before the first byte, one round trip: the lease, the loads, the
	// usage and the reservation.
	turn, err := store.StartTurn(ctx, tenant, id, conversation.TurnStart{HistoryTurns: 5, LeaseFor: time.Minute,
		DailyTokenLimit: 1000, Reserve: &conversation.Turn{UserText: "q4", Profile: &profile}})
	if err != nil || turn.Reserved == nil || turn.Reserved.Number != 4 {
		t.Fatalf("StartTurn with a reservation = %+v, %v", turn, err)
	}
	check("StartTurn with a reservation")
	// After the answer, one round trip: the outcome, usage, lease, concepts
	// and used items.
	finished := conversation.Turn{Number: 4, AssistantText: "a4", Status: conversation.TurnOK, LeaseID: turn.LeaseID,
		Usage: conversation.Usage{TotalTokens: 9}}
	if err := store.FinishTurn(ctx, tenant, id, finished, conversation.TurnFinish{ActiveNodes: []string{"D"}, UsedItems: []string{uuid.NewString()}}); err != nil {
		t.Fatal(err)
	}
	check("FinishTurn with concepts and used items")
	// A new conversation: created with its first turn reserved, in one.
	first, err := store.StartConversation(ctx, conversation.Conversation{TenantID: tenant, OwnerID: "u"},
		conversation.TurnStart{DailyTokenLimit: 1000, Reserve: &conversation.Turn{UserText: "hello"}})
	if err != nil || first.Reserved == nil {
		t.Fatalf("StartConversation = %+v, %v", first, err)
	}
	check("StartConversation")
}
