package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"regintel/shared/conversation"
	convpg "regintel/shared/conversation/postgres"
	"regintel/shared/conversation/storetest"
	"regintel/shared/pgpool/pgtest"
)

func TestStoreContract(t *testing.T) {
	// One database for the whole contract: its tests use their own tenants.
	// The pool is larger than in Lambda so the 50-way concurrency tests
	// really run concurrently.
	// The store signs in as the runtime role, under row-level security,
	// with prepared statements (the default) and without (behind RDS Proxy).
	for _, cache := range []bool{true, false} {
		t.Run(fmt.Sprintf("statementCache=%v", cache), func(t *testing.T) {
			_, runtime := pgtest.NewRuntimePoolsCaching(t, 25, cache)
			store := convpg.New(runtime)
			storetest.Run(t, func(testing.TB) storetest.Store { return store })
		})
	}
}

// BenchmarkConformanceStore runs the contract's benchmarks on the runtime
// role, with a SELECT 1 round trip measured first as their baseline.
func BenchmarkConformanceStore(b *testing.B) {
	_, runtime := pgtest.NewRuntimePoolsCaching(b, 4, true)
	b.Run("SelectOneBaseline", func(b *testing.B) {
		for b.Loop() {
			if _, err := runtime.Exec(context.Background(), "SELECT 1"); err != nil {
				b.Fatal(err)
			}
		}
	})
	storetest.Bench(b, func(testing.TB) storetest.Store { return convpg.New(runtime) })
}

// An unreadable context is reported in ContextErr; the conversation and
// history still load (a failed context load is the empty context).
func TestUnreadableContextIsContextErr(t *testing.T) {
	ctx := conversation.WithOwner(context.Background(), "u")
	pool := pgtest.NewMigratedPool(t, 2)
	store := convpg.New(pool)
	tenant := uuid.NewString()
	c, err := store.CreateConversation(ctx, conversation.Conversation{TenantID: tenant, OwnerID: "u"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.AppendTurn(ctx, tenant, c.ID, conversation.Turn{UserText: "q", AssistantText: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO conversation_context (tenant_id, conversation_id, context_json)
		VALUES ($1::uuid, $2::uuid, '{"activeNodeIds": "not a list"}')`, tenant, c.ID); err != nil {
		t.Fatal(err)
	}

	st, err := store.LoadTurnState(ctx, tenant, c.ID, 5)
	if err != nil {
		t.Fatalf("LoadTurnState failed instead of degrading: %v", err)
	}
	if st.ContextErr == nil {
		t.Error("ContextErr is nil for an unreadable context")
	}
	if len(st.Context.ActiveNodeIDs) != 0 || len(st.History) != 1 || st.Conversation.ID != c.ID {
		t.Errorf("state = %+v, want the conversation, its turn and an empty context", st)
	}

	// A merge repairs it (the malformed list is treated as empty) and keeps
	// other keys of context_json.
	if _, err := pool.Exec(ctx, `UPDATE conversation_context SET context_json = context_json || '{"note": 1}'
		WHERE tenant_id = $1::uuid`, tenant); err != nil {
		t.Fatal(err)
	}
	if err := store.MergeActiveNodes(ctx, tenant, c.ID, []string{"TAX:IE:VAT"}, 3); err != nil {
		t.Fatal(err)
	}
	st, err = store.LoadTurnState(ctx, tenant, c.ID, 5)
	if err != nil || st.ContextErr != nil || !slices.Equal(st.Context.ActiveNodeIDs, []string{"TAX:IE:VAT"}) {
		t.Fatalf("after merge: %+v, %v", st, err)
	}
	var note int
	if err := pool.QueryRow(ctx, `SELECT (context_json->>'note')::int FROM conversation_context WHERE tenant_id = $1::uuid`, tenant).Scan(&note); err != nil || note != 1 {
		t.Errorf("merge dropped other context keys: note=%d err=%v", note, err)
	}
}

// Rows of a deleted conversation go with it, and rows always carry the
// conversation's tenant.
func TestDeleteCascadesAndTenantColumns(t *testing.T) {
	ctx := conversation.WithOwner(context.Background(), "u")
	pool := pgtest.NewMigratedPool(t, 2)
	store := convpg.New(pool)
	tenant := uuid.NewString()
	c, err := store.CreateConversation(ctx, conversation.Conversation{TenantID: tenant, OwnerID: "u"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.AppendTurn(ctx, tenant, c.ID, conversation.Turn{UserText: "q"}); err != nil {
		t.Fatal(err)
	}
	if err := store.MergeActiveNodes(ctx, tenant, c.ID, []string{"A"}, 3); err != nil {
		t.Fatal(err)
	}
	var mismatched int
	if err := pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM conversation_turns WHERE conversation_id = $1::uuid AND tenant_id <> $2::uuid) +
		(SELECT count(*) FROM conversation_context WHERE conversation_id = $1::uuid AND tenant_id <> $2::uuid)`,
		c.ID, tenant).Scan(&mismatched); err != nil || mismatched != 0 {
		t.Fatalf("rows with another tenant id: %d (err %v)", mismatched, err)
	}
	// A row claiming another tenant for this conversation is refused by the
	// tenant-scoped foreign key.
	if _, err := pool.Exec(ctx, `INSERT INTO conversation_context (tenant_id, conversation_id, context_json)
		VALUES ($1::uuid, $2::uuid, '{}')`, uuid.NewString(), c.ID); err == nil {
		t.Error("context row for another tenant's conversation was accepted")
	}

	if _, err := pool.Exec(ctx, `DELETE FROM conversations WHERE tenant_id = $1::uuid AND id = $2::uuid`, tenant, c.ID); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM conversation_turns WHERE conversation_id = $1::uuid) +
		(SELECT count(*) FROM conversation_context WHERE conversation_id = $1::uuid)`, c.ID).Scan(&left); err != nil || left != 0 {
		t.Fatalf("rows left after deleting the conversation: %d (err %v)", left, err)
	}
}

// A turn's context that cannot be saved does not undo the turn saved with
// it in the same round trip: FinishTurn reports ErrContextNotSaved and the
// turn, its usage and the lease's release stand.
func TestContextFailureKeepsTheFinishedTurn(t *testing.T) {
	ctx := conversation.WithOwner(context.Background(), "u")
	pool := pgtest.NewMigratedPool(t, 2)
	store := convpg.New(pool)
	tenant := uuid.NewString()
	// A context write of this tenant fails, as a full disk or a lock
	// timeout would.
	for _, stmt := range []string{
		`CREATE OR REPLACE FUNCTION refuse_context_of_tenant() RETURNS trigger LANGUAGE plpgsql AS $$
		 BEGIN
		     IF NEW.tenant_id = '` + tenant + `'::uuid THEN RAISE EXCEPTION 'context write refused'; END IF;
		     RETURN NEW;
		 END $$`,
		`CREATE TRIGGER refuse_context_` + strings.ReplaceAll(tenant, "-", "") + ` BEFORE INSERT OR UPDATE ON conversation_context
		 FOR EACH ROW EXECUTE FUNCTION refuse_context_of_tenant()`,
	} {
		if _, err := pool.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_, _ = pool.Exec(context.Background(), `DROP TRIGGER IF EXISTS refuse_context_`+strings.ReplaceAll(tenant, "-", "")+` ON conversation_context`)
	})
	st, err := store.StartConversation(ctx, conversation.Conversation{TenantID: tenant, OwnerID: "u"},
		conversation.TurnStart{Reserve: &conversation.Turn{UserText: "q"}})
	if err != nil || st.Reserved == nil {
		t.Fatalf("StartConversation = %+v, %v", st, err)
	}
	id := st.Conversation.ID
	finished := conversation.Turn{Number: 1, AssistantText: "a", Status: conversation.TurnOK, LeaseID: st.LeaseID, Usage: conversation.Usage{TotalTokens: 7}}
	err = store.FinishTurn(ctx, tenant, id, finished, conversation.TurnFinish{ActiveNodes: []string{"TAX:IE:VAT"}})
	if !errors.Is(err, conversation.ErrContextNotSaved) {
		t.Fatalf("FinishTurn with a failing context write = %v, want ErrContextNotSaved", err)
	}
	loaded, err := store.LoadTurnState(ctx, tenant, id, 5)
	if err != nil || len(loaded.History) != 1 || loaded.History[0].Status != conversation.TurnOK || loaded.History[0].AssistantText != "a" ||
		len(loaded.Context.ActiveNodeIDs) != 0 {
		t.Fatalf("after the finish: %+v, %v", loaded, err)
	}
	if used, err := store.TenantTokensToday(ctx, tenant); err != nil || used != 7 {
		t.Errorf("usage = %d, %v; want 7", used, err)
	}
	if _, err := store.StartTurn(ctx, tenant, id, conversation.TurnStart{}); err != nil {
		t.Errorf("the lease was not given back: %v", err)
	}
}
