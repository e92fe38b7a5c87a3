package postgres_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/google/uuid"

	"regintel/shared/conversation"
	convpg "regintel/shared/conversation/postgres"
	"regintel/shared/pgpool/pgtest"
)

// The tenant's daily usage row sums what its turns used: tokens, cached
// input tokens and cost, for turns appended, finished in place and
// settled without a stored turn (stateless); an unpriced turn adds no
// cost.
func TestDailyUsageSumsCachedTokensAndCost(t *testing.T) {
	ctx := context.Background()
	owner, runtime := pgtest.NewRuntimePools(t, 4)
	store := convpg.New(runtime)
	userCtx := conversation.WithOwner(ctx, "user-1")
	tenant := uuid.NewString()
	c, err := store.CreateConversation(userCtx, conversation.Conversation{TenantID: tenant, OwnerID: "user-1"})
	if err != nil {
		t.Fatal(err)
	}
	cost := 0.25
	priced := conversation.Usage{InputTokens: 2000, OutputTokens: 100, TotalTokens: 2100, CachedInputTokens: 1024, CostUSD: &cost}
	if _, err := store.AppendTurn(userCtx, tenant, c.ID, conversation.Turn{UserText: "q1", Usage: priced}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.StartTurn(userCtx, tenant, c.ID, conversation.TurnStart{LeaseFor: time.Minute}); err != nil {
		t.Fatal(err)
	}
	n, err := store.ReserveTurn(userCtx, tenant, c.ID, conversation.Turn{UserText: "q2"})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.FinishTurn(userCtx, tenant, c.ID, conversation.Turn{Number: n, Status: conversation.TurnOK, Usage: priced}, conversation.TurnFinish{}); err != nil {
		t.Fatal(err)
	}
	charge, err := store.ChargeTokens(userCtx, tenant, conversation.TokenCharge{Tokens: 5000}, conversation.DailyLimits{Tokens: 100000})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SettleTokens(userCtx, tenant, charge, conversation.Settlement{Usage: priced, Record: true}); err != nil {
		t.Fatal(err)
	}
	unpriced := conversation.Usage{InputTokens: 10, OutputTokens: 2, TotalTokens: 12, CachedInputTokens: 8}
	if _, err := store.AppendTurn(userCtx, tenant, c.ID, conversation.Turn{UserText: "q3", Usage: unpriced}); err != nil {
		t.Fatal(err)
	}

	tx, err := owner.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `SELECT set_config('regintel.tenant_id', $1::text, true)`, tenant); err != nil {
		t.Fatal(err)
	}
	var total, cached, turns int64
	var costSum float64
	if err := tx.QueryRow(ctx, `SELECT sum(total_tokens), sum(cached_input_tokens), sum(cost_usd)::float8, sum(turns)
		FROM tenant_daily_usage WHERE tenant_id = $1::uuid`, tenant).Scan(&total, &cached, &costSum, &turns); err != nil {
		t.Fatal(err)
	}
	if total != 3*2100+12 || cached != 3*1024+8 || math.Abs(costSum-0.75) > 1e-9 || turns != 4 {
		t.Errorf("daily usage: %d tokens, %d cached, $%v over %d turns; want %d, %d, $0.75 over 4", total, cached, costSum, turns, 3*2100+12, 3*1024+8)
	}
}
