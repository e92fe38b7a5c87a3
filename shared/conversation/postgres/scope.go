package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"regintel/shared/conversation"
)

// setScope is the first statement of every batch and transaction the store
// sends. It names the tenant and owner the row-level security policies
// (migrations/00010) let through, for this transaction only: a batch runs
// as one implicit transaction, so the scope costs no round trip of its own
// and never outlives the call on a pooled connection.
const setScope = `SELECT set_config('regintel.tenant_id', $1::text, true), set_config('regintel.owner_id', $2::text, true)`

// ownedConversation is the owner predicate on a conversations row c,
// written into the store's queries as well as enforced by the policies.
const ownedConversation = `c.owner_id = regintel_scope_owner()`

// ofOwnedConversation limits rows of a table tied to a conversation to
// those of a conversation the caller owns: such rows carry their
// conversation's owner_id.
const ofOwnedConversation = ` AND owner_id = regintel_scope_owner()`

// callScope is the tenant and owner of one store call.
type callScope struct{ tenant, owner string }

// scopeOf validates the tenant and takes the owner from ctx.
func scopeOf(ctx context.Context, tenantID string) (callScope, error) {
	if !isUUID(tenantID) {
		return callScope{}, conversation.ErrInvalidTenant
	}
	owner, err := conversation.OwnerOf(ctx)
	if err != nil {
		return callScope{}, err
	}
	return callScope{tenant: tenantID, owner: owner}, nil
}

// newBatch returns a batch that starts by setting the scope.
func (sc callScope) newBatch() *pgx.Batch {
	b := &pgx.Batch{}
	b.Queue(setScope, sc.tenant, sc.owner)
	return b
}

// batchSender is a pool or a transaction.
type batchSender interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// send sends b (made by newBatch) and consumes the scope's result, so the
// caller reads its own statements' results in the order queued. The caller
// closes the results.
func send(ctx context.Context, db batchSender, b *pgx.Batch) (pgx.BatchResults, error) {
	results := db.SendBatch(ctx, b)
	if _, err := results.Exec(); err != nil {
		results.Close()
		return nil, fmt.Errorf("set the store scope: %w", err)
	}
	return results, nil
}

// queryRow runs one statement under the scope in one round trip.
func (sc callScope) queryRow(ctx context.Context, db batchSender, sql string, args ...any) pgx.Row {
	b := sc.newBatch()
	b.Queue(sql, args...)
	results, err := send(ctx, db, b)
	if err != nil {
		return errRow{err}
	}
	return closingRow{results: results, row: results.QueryRow()}
}

// query runs one statement under the scope and collects its rows.
func query[T any](ctx context.Context, db batchSender, sc callScope, scan pgx.RowToFunc[T], sql string, args ...any) ([]T, error) {
	b := sc.newBatch()
	b.Queue(sql, args...)
	results, err := send(ctx, db, b)
	if err != nil {
		return nil, err
	}
	defer results.Close()
	rows, err := results.Query()
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scan)
}

// exec runs one statement under the scope and returns its row count.
func (sc callScope) exec(ctx context.Context, db batchSender, sql string, args ...any) (int64, error) {
	b := sc.newBatch()
	b.Queue(sql, args...)
	results, err := send(ctx, db, b)
	if err != nil {
		return 0, err
	}
	defer results.Close()
	tag, err := results.Exec()
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), results.Close()
}

// closingRow closes the batch once the row is read.
type closingRow struct {
	results pgx.BatchResults
	row     pgx.Row
}

func (r closingRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	if closeErr := r.results.Close(); err == nil {
		err = closeErr
	}
	return err
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
