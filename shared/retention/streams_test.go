package retention_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	convpg "regintel/shared/conversation/postgres"
	"regintel/shared/dbsetup"
	"regintel/shared/pgpool"
	"regintel/shared/pgpool/pgtest"
	"regintel/shared/retention"
)

// sweepRolePool signs in as a sweep role made as the migrate function
// makes it.
func sweepRolePool(t *testing.T, owner *pgxpool.Pool) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	u, err := url.Parse(owner.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	role := "regintel_sweep_" + strings.TrimPrefix(u.Path, "/regintel_t_")
	if err := dbsetup.EnsureSweepRole(ctx, owner, role); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pgtest.DropRole(t, owner, role) })
	u.User = url.User(role)
	pool, err := pgpool.NewPool(ctx, pgpool.Config{URL: u.String(), MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// seedStreams gives every conversation of tenant a recorded stream of
// three events.
func seedStreams(t *testing.T, pool *pgxpool.Pool, tenant string) {
	t.Helper()
	for _, sql := range []string{
		`INSERT INTO turn_streams (tenant_id, conversation_id, owner_id, turn_number)
		 SELECT tenant_id, id, '', 1 FROM conversations WHERE tenant_id = @tenant::uuid`,
		`INSERT INTO turn_stream_events (tenant_id, conversation_id, owner_id, turn_number, seq, name, data)
		 SELECT tenant_id, id, '', 1, s, 'message', '{"text":"recorded"}'
		 FROM conversations, generate_series(0, 2) AS s WHERE tenant_id = @tenant::uuid`,
	} {
		if _, err := pool.Exec(context.Background(), sql, pgx.NamedArgs{"tenant": tenant}); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

// A conversation idle past retention loses its recorded stream with the
// rest of its engine memory, as the sweep's own role; an active one keeps
// it.
func TestSweepDeletesIdleRecordedStreams(t *testing.T) {
	ctx := context.Background()
	owner, _ := pgtest.NewRuntimePools(t, 2)
	long, recent := time.Now().Add(-90*24*time.Hour), time.Now()
	idle := seedGroup(t, owner, 2, long, long, long)
	active := seedGroup(t, owner, 1, recent, recent, recent)
	seedStreams(t, owner, idle)
	seedStreams(t, owner, active)

	counts, err := retention.Sweep(ctx, sweepRolePool(t, owner), retention.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if counts.StreamEventsDeleted != 6 || counts.StreamsDeleted != 2 {
		t.Errorf("swept %+v, want the idle pair's 6 stream events and 2 streams", counts)
	}
	for _, table := range []string{"turn_streams", "turn_stream_events"} {
		if n := count(t, owner, `SELECT count(*) FROM `+table+` WHERE tenant_id = $1::uuid`, idle); n != 0 {
			t.Errorf("%d rows of %s left for idle conversations", n, table)
		}
		if n := count(t, owner, `SELECT count(*) FROM `+table+` WHERE tenant_id = $1::uuid`, active); n == 0 {
			t.Errorf("the active conversation's %s rows were swept", table)
		}
	}
}

// Every table that holds rows of a conversation is in its export or under
// the sweep: a new table with a conversation_id column fails this test
// until it is one or the other.
func TestEveryConversationTableIsExportedOrSwept(t *testing.T) {
	owner, _ := pgtest.NewRuntimePools(t, 2)
	rows, err := owner.Query(context.Background(), `
		SELECT DISTINCT table_name FROM information_schema.columns
		WHERE table_schema = 'public' AND column_name = 'conversation_id'
		ORDER BY table_name`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) < 5 {
		t.Fatalf("found only %v: the query no longer sees the schema", tables)
	}
	exported, swept := convpg.ExportedTables(), retention.SweptTables()
	for _, table := range tables {
		if !slices.Contains(exported, table) && !slices.Contains(swept, table) {
			t.Errorf("table %s holds conversation rows but is neither exported (%v) nor swept (%v)", table, exported, swept)
		}
	}
}

// The place of a stream follower whose process ended without giving it
// back is deleted once its lease lapsed, whatever the conversation's age,
// as the sweep's own role; a place still held stays.
func TestSweepDeletesLapsedFollowerPlaces(t *testing.T) {
	ctx := context.Background()
	owner, _ := pgtest.NewRuntimePools(t, 2)
	recent := time.Now()
	tenant := seedGroup(t, owner, 2, recent, recent, recent)
	if _, err := owner.Exec(ctx, `
		INSERT INTO turn_stream_followers (tenant_id, conversation_id, owner_id, place, lease_until)
		SELECT tenant_id, id, '', gen_random_uuid(), now() + lease
		FROM conversations, (VALUES (interval '-1 minute'), (interval '-1 second'), (interval '1 minute')) AS l(lease)
		WHERE tenant_id = $1::uuid`, tenant); err != nil {
		t.Fatal(err)
	}
	counts, err := retention.Sweep(ctx, sweepRolePool(t, owner), retention.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if counts.FollowersDeleted != 4 {
		t.Errorf("swept %+v, want the 4 lapsed places of 2 conversations", counts)
	}
	if n := count(t, owner, `SELECT count(*) FROM turn_stream_followers WHERE tenant_id = $1::uuid AND lease_until > now()`, tenant); n != 2 {
		t.Errorf("%d held places left, want 2", n)
	}
}
