package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"regintel/shared/conversation"
	convpg "regintel/shared/conversation/postgres"
	"regintel/shared/pgpool/pgtest"
)

// tenantTables are the tables whose rows belong to a tenant.
var tenantTables = []string{"conversations", "conversation_turns", "conversation_context",
	"context_requests", "supplied_context_items", "tenant_daily_usage", "conversation_sharing"}

// Row-level security holds where a query forgets its predicates: the
// runtime role, scoped to one tenant and user, sees nothing of another
// tenant or of another user's conversation even in a bare SELECT.
func TestRowLevelSecurityWithoutPredicates(t *testing.T) {
	ctx := context.Background()
	owner, runtime := pgtest.NewRuntimePools(t, 2)
	tenantA, tenantB := uuid.NewString(), uuid.NewString()
	seedEveryTenantTable(t, convpg.New(runtime), tenantA, tenantB)

	wantVisible(t, "the owner in tenant A", visibleRows(t, runtime, tenantA, "u"), map[string]int{"conversations": 1, "conversation_turns": 1,
		"conversation_context": 1, "context_requests": 1, "supplied_context_items": 1, "tenant_daily_usage": 1, "conversation_sharing": 1})
	wantVisible(t, "the same user id in tenant B", visibleRows(t, runtime, tenantB, "u"), map[string]int{"conversations": 1})
	wantVisible(t, "another user of tenant A", visibleRows(t, runtime, tenantA, "u2"), map[string]int{"tenant_daily_usage": 1})
	wantVisible(t, "a transaction with no scope", visibleRows(t, runtime, "", ""), map[string]int{})

	// The rows are there: the owner role (the migrations') sees them all.
	var all int
	if err := owner.QueryRow(ctx, `SELECT count(*) FROM conversations WHERE tenant_id IN ($1::uuid, $2::uuid)`, tenantA, tenantB).Scan(&all); err != nil || all != 2 {
		t.Fatalf("conversations held: %d, %v", all, err)
	}
}

// seedEveryTenantTable gives user "u" one row in each tenant-owned table of
// tenant A, and one conversation in tenant B.
func seedEveryTenantTable(t *testing.T, store *convpg.Store, tenantA, tenantB string) {
	t.Helper()
	asU := conversation.WithOwner(context.Background(), "u")
	a, err := store.CreateConversation(asU, conversation.Conversation{TenantID: tenantA, OwnerID: "u"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.AppendTurn(asU, tenantA, a.ID, conversation.Turn{UserText: "q", Usage: conversation.Usage{TotalTokens: 10}}); err != nil {
		t.Fatal(err)
	}
	if err := store.MergeActiveNodes(asU, tenantA, a.ID, []string{"TAX:IE:VAT"}, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateContextRequest(asU, conversation.ContextRequest{TenantID: tenantA, ConversationID: a.ID, ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.SupplyItems(asU, tenantA, a.ID, []conversation.SuppliedItem{{Key: "k", Kind: conversation.KindText, Content: "c"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := convpg.NewSharing(store).SetSharing(asU, tenantA, a.ID, conversation.Sharing{Audience: conversation.AudienceTenant, TenantAccess: conversation.AccessView}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateConversation(asU, conversation.Conversation{TenantID: tenantB, OwnerID: "u"}); err != nil {
		t.Fatal(err)
	}
}

// visibleRows counts what the runtime role sees, per table, with no
// predicate at all; an empty tenant sets no scope.
func visibleRows(t *testing.T, runtime *pgxpool.Pool, tenant, user string) map[string]int {
	t.Helper()
	ctx := context.Background()
	counts := map[string]int{}
	err := pgx.BeginFunc(ctx, runtime, func(tx pgx.Tx) error {
		if tenant != "" {
			if _, err := tx.Exec(ctx, `SELECT set_config('regintel.tenant_id', $1::text, true), set_config('regintel.owner_id', $2::text, true)`, tenant, user); err != nil {
				return err
			}
		}
		for _, table := range tenantTables {
			var n int
			if err := tx.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
				return err
			}
			counts[table] = n
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return counts
}

func wantVisible(t *testing.T, who string, got, want map[string]int) {
	t.Helper()
	for _, table := range tenantTables {
		if got[table] != want[table] {
			t.Errorf("%s sees %d rows of %s, want %d", who, got[table], table, want[table])
		}
	}
}

// The runtime role owns no table, cannot bypass row-level security, and
// every tenant-owned table forces it on its owner too.
func TestRuntimeRoleCannotBypassRowLevelSecurity(t *testing.T) {
	ctx := context.Background()
	owner, runtime := pgtest.NewRuntimePools(t, 1)
	var owned int
	var bypass, super bool
	if err := runtime.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_tables WHERE tableowner = current_user),
		rolbypassrls, rolsuper FROM pg_roles WHERE rolname = current_user`).Scan(&owned, &bypass, &super); err != nil {
		t.Fatal(err)
	}
	if owned != 0 || bypass || super {
		t.Errorf("runtime role owns %d tables, bypassrls=%v, superuser=%v", owned, bypass, super)
	}
	// Turning row security off makes a filtered query fail, not bypass.
	err := pgx.BeginFunc(ctx, runtime, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL row_security = off`); err != nil {
			return err
		}
		var n int
		return tx.QueryRow(ctx, `SELECT count(*) FROM conversations`).Scan(&n)
	})
	if err == nil {
		t.Error("the runtime role read conversations with row_security off")
	}
	for _, table := range tenantTables {
		var enabled, forced bool
		if err := owner.QueryRow(ctx, `SELECT relrowsecurity, relforcerowsecurity FROM pg_class
			WHERE oid = to_regclass($1)`, table).Scan(&enabled, &forced); err != nil {
			t.Fatal(err)
		}
		if !enabled || !forced {
			t.Errorf("%s: row level security enabled=%v forced=%v", table, enabled, forced)
		}
	}
	// And no other table holds tenant rows without it.
	rows, err := owner.Query(ctx, `SELECT c.relname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
		WHERE a.attname = 'tenant_id' AND c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace
		AND NOT (c.relrowsecurity AND c.relforcerowsecurity)`)
	if err != nil {
		t.Fatal(err)
	}
	unprotected, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(unprotected) != 0 {
		t.Errorf("tables with tenant_id and no forced row level security: %v (%v)", unprotected, err)
	}
}

// The policies compare the rows' own columns: a policy with a subquery (the
// conversation looked up for every row) made each statement of a turn
// costlier to plan and to run. Rows tied to a conversation carry its
// owner, whatever an insert says.
func TestPoliciesCompareColumnsOnly(t *testing.T) {
	ctx := context.Background()
	owner, runtime := pgtest.NewRuntimePools(t, 1)
	rows, err := owner.Query(ctx, `SELECT tablename || '.' || policyname FROM pg_policies
		WHERE schemaname = 'public' AND (qual ILIKE '%select%' OR with_check ILIKE '%select%')`)
	if err != nil {
		t.Fatal(err)
	}
	withSubqueries, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(withSubqueries) != 0 {
		t.Errorf("policies with a subquery: %v (%v)", withSubqueries, err)
	}

	store := convpg.New(runtime)
	tenant := uuid.NewString()
	asU := conversation.WithOwner(ctx, "u")
	c, err := store.CreateConversation(asU, conversation.Conversation{TenantID: tenant, OwnerID: "u"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Exec(ctx, `INSERT INTO conversation_turns (tenant_id, conversation_id, owner_id, turn_number, user_text)
		VALUES ($1::uuid, $2::uuid, 'someone-else', 1, 'q')`, tenant, c.ID); err != nil {
		t.Fatal(err)
	}
	st, err := store.LoadTurnState(asU, tenant, c.ID, 5)
	if err != nil || len(st.History) != 1 {
		t.Fatalf("the conversation's owner sees %+v, %v; want its one turn", st.History, err)
	}
}
