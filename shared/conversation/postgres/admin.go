package postgres

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"regintel/shared/conversation"
)

// A search ($6, one ILIKE pattern per word, none without one) keeps the
// conversations where no word is missing from the title and every turn.
// Keyset pagination: rows strictly after the cursor in (updated_at, id)
// descending order. One row more than the page is read to know whether
// another page follows.
const listConversations = `
SELECT ` + conversationColumns + `
FROM conversations c
WHERE c.tenant_id = $1::uuid AND ` + ownedConversation + `
  AND ($2::boolean IS NULL OR archived = $2::boolean)
  AND ($3::timestamptz IS NULL OR (updated_at, id) < ($3::timestamptz, $4::uuid))
  AND NOT EXISTS (
    SELECT 1 FROM unnest($6::text[]) AS word(pattern)
    WHERE NOT (c.title ILIKE word.pattern ESCAPE '\'
               OR EXISTS (SELECT 1 FROM conversation_turns t
                          WHERE t.tenant_id = c.tenant_id AND t.conversation_id = c.id
                            AND (t.user_text ILIKE word.pattern ESCAPE '\' OR t.assistant_text ILIKE word.pattern ESCAPE '\'))))
ORDER BY updated_at DESC, id DESC
LIMIT $5::integer`

// ListConversations implements conversation.Admin: the conversations of
// the owner in ctx.
func (s *Store) ListConversations(ctx context.Context, tenantID string, q conversation.ListQuery) (conversation.Page, error) {
	sc, err := scopeOf(ctx, tenantID)
	if err != nil {
		return conversation.Page{}, err
	}
	var after *time.Time
	var afterID *string
	if q.Cursor != "" {
		cur, err := conversation.ParseCursor(q.Cursor)
		if err != nil || !isUUID(cur.ID) {
			return conversation.Page{}, conversation.ErrInvalidCursor
		}
		after, afterID = &cur.UpdatedAt, &cur.ID
	}
	patterns := []string{}
	if q.Search != "" {
		words, err := conversation.SearchWords(q.Search)
		if err != nil {
			return conversation.Page{}, err
		}
		for _, w := range words {
			patterns = append(patterns, "%"+likeEscaper.Replace(w)+"%")
		}
	}
	size := q.PageSize()
	list, err := query(ctx, s.pool, sc, func(row pgx.CollectableRow) (conversation.Conversation, error) {
		return scanConversation(row, tenantID)
	}, listConversations, tenantID, q.Archived, after, afterID, size+1, patterns)
	if err != nil {
		return conversation.Page{}, fmt.Errorf("list conversations: %w", err)
	}
	page := conversation.Page{Conversations: list}
	if len(list) > size {
		page.Conversations = list[:size]
		page.NextCursor = conversation.CursorAfter(list[size-1]).Encode()
	}
	if page.Conversations == nil {
		page.Conversations = []conversation.Conversation{}
	}
	return page, nil
}

// likeEscaper makes a search word match as written: LIKE's wildcards and
// its escape character lose their meaning.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

const selectAllTurns = `
SELECT turn_number, user_text, assistant_text, status, provider, model,
       input_tokens, output_tokens, total_tokens, latency_ms, referenced_nodes, metadata, created_at,
       cached_input_tokens, cost_usd::float8, usage_estimated
FROM conversation_turns
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid` + ofOwnedConversation + `
ORDER BY turn_number`

const selectContextRow = `
SELECT context_json, updated_at FROM conversation_context
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid` + ofOwnedConversation

// $3 restricts to pending requests that have not yet expired at the
// database's now(); null selects every request.
const selectContextRequests = `
SELECT id::text, status, items, question, created_at, expires_at, resolved_at
FROM context_requests
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid` + ofOwnedConversation + `
  AND (NOT $3::boolean OR (status = 'pending' AND expires_at > now()))
ORDER BY created_at, id`

const selectSuppliedItems = `
SELECT id::text, coalesce(request_id::text, ''), key, kind, content, redacted, created_at, last_used_at
FROM supplied_context_items
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid` + ofOwnedConversation + `
ORDER BY created_at, id`

// GetConversation implements conversation.Admin in one pipelined batch.
func (s *Store) GetConversation(ctx context.Context, tenantID, conversationID string) (conversation.Detail, error) {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.Detail{}, err
	}
	held, err := readHeld(ctx, s.pool, sc, conversationID, true)
	if err != nil {
		return conversation.Detail{}, err
	}
	d := conversation.Detail{
		Conversation:    held.Conversation,
		Turns:           held.Turns,
		ActiveNodeIDs:   []string{},
		PendingRequests: held.ContextRequests,
		SuppliedItems:   held.SuppliedItems,
	}
	if held.Context != nil {
		// An unreadable context shows as no active concepts, as a chat turn
		// would treat it (a failed context load is the empty context).
		if loaded, err := decodeContext(held.Context.Data); err == nil {
			d.ActiveNodeIDs = loaded.ActiveNodeIDs
		}
	}
	return d, nil
}

// ExportConversation implements conversation.Admin. The reads run in one
// repeatable-read transaction so the export is a single snapshot.
func (s *Store) ExportConversation(ctx context.Context, tenantID, conversationID string) (conversation.Export, error) {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.Export{}, err
	}
	var out conversation.Export
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			var err error
			if out, err = readHeld(ctx, tx, sc, conversationID, false); err != nil {
				return err
			}
			if out.RecordedStream, err = readRecordedStream(ctx, tx, sc, conversationID); err != nil {
				return err
			}
			out.Sharing, err = readExportedSharing(ctx, tx, sc, conversationID)
			return err
		})
	if err != nil {
		return conversation.Export{}, err
	}
	return out, nil
}

const (
	selectStreamRow = `
SELECT turn_number, format, stop_requested FROM turn_streams
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid` + ofOwnedConversation
	selectStreamEvents = `
SELECT seq, name, data FROM turn_stream_events
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid` + ofOwnedConversation + `
ORDER BY seq`
)

var readTable = regexp.MustCompile(`FROM (\w+)`)

// ExportedTables names the tables an export reads, from its statements.
func ExportedTables() []string {
	var out []string
	for _, sql := range []string{selectConversation, selectAllTurns, selectContextRow, selectContextRequests,
		selectSuppliedItems, selectStreamRow, selectStreamEvents, selectSharingRow, selectFeedback} {
		if m := readTable.FindStringSubmatch(sql); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

const selectSharingRow = `
SELECT share_audience, tenant_access, updated_at FROM conversation_sharing
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid` + ofOwnedConversation

// readExportedSharing reads the conversation's sharing setting for its
// export; nil when never set.
func readExportedSharing(ctx context.Context, db batchSender, sc callScope, conversationID string) (*conversation.ExportedSharing, error) {
	var sh conversation.ExportedSharing
	err := sc.queryRow(ctx, db, selectSharingRow, sc.tenant, conversationID).Scan(&sh.ShareAudience, &sh.TenantAccess, &sh.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read sharing: %w", err)
	}
	return &sh, nil
}

// readRecordedStream reads the conversation's recorded stream for its
// export; nil when none is kept.
func readRecordedStream(ctx context.Context, db batchSender, sc callScope, conversationID string) (*conversation.RecordedStream, error) {
	batch := sc.newBatch()
	batch.Queue(selectStreamRow, sc.tenant, conversationID)
	batch.Queue(selectStreamEvents, sc.tenant, conversationID)
	results, err := send(ctx, db, batch)
	if err != nil {
		return nil, fmt.Errorf("read recorded stream: %w", err)
	}
	defer results.Close()
	var rs conversation.RecordedStream
	err = results.QueryRow().Scan(&rs.TurnNumber, &rs.Format, &rs.StopRequested)
	noRow := errors.Is(err, pgx.ErrNoRows)
	if err != nil && !noRow {
		return nil, fmt.Errorf("read recorded stream: %w", err)
	}
	rows, err := results.Query()
	if err != nil {
		return nil, fmt.Errorf("read recorded stream: %w", err)
	}
	rs.Events, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (conversation.StreamEvent, error) {
		var ev conversation.StreamEvent
		var data string
		err := row.Scan(&ev.Seq, &ev.Name, &data)
		ev.Data = []byte(data)
		return ev, err
	})
	if err != nil {
		return nil, fmt.Errorf("read recorded stream: %w", err)
	}
	if noRow && len(rs.Events) == 0 {
		return nil, nil
	}
	if rs.Events == nil {
		rs.Events = []conversation.StreamEvent{}
	}
	return &rs, nil
}

// readHeld reads the conversation and every row tied to it in one batch.
// pendingOnly limits context requests to those still awaiting the client.
func readHeld(ctx context.Context, db batchSender, sc callScope, conversationID string, pendingOnly bool) (conversation.Export, error) {
	tenantID := sc.tenant
	batch := sc.newBatch()
	batch.Queue(selectConversation, tenantID, conversationID)
	batch.Queue(selectAllTurns, tenantID, conversationID)
	batch.Queue(selectContextRow, tenantID, conversationID)
	batch.Queue(selectContextRequests, tenantID, conversationID, pendingOnly)
	batch.Queue(selectSuppliedItems, tenantID, conversationID)
	batch.Queue(selectFeedback, tenantID, conversationID)
	results, err := send(ctx, db, batch)
	if err != nil {
		return conversation.Export{}, fmt.Errorf("read conversation: %w", err)
	}
	defer results.Close()

	out := conversation.Export{TenantID: tenantID}
	out.Conversation, err = scanConversation(results.QueryRow(), tenantID)
	if errors.Is(err, pgx.ErrNoRows) {
		return conversation.Export{}, conversation.ErrNotFound
	}
	if err != nil {
		return conversation.Export{}, fmt.Errorf("read conversation: %w", err)
	}

	rows, err := results.Query()
	if err != nil {
		return conversation.Export{}, fmt.Errorf("read turns: %w", err)
	}
	if out.Turns, err = pgx.CollectRows(rows, scanTurn); err != nil {
		return conversation.Export{}, fmt.Errorf("read turns: %w", err)
	}

	if out.Context, err = scanHeldContext(results); err != nil {
		return conversation.Export{}, err
	}
	if err := scanHeldRequests(results, &out); err != nil {
		return conversation.Export{}, err
	}
	if out.Feedback, err = scanHeldFeedback(results); err != nil {
		return conversation.Export{}, err
	}
	emptyListsNotNull(&out)
	return out, nil
}

// scanHeldContext reads the batch's context row; nil when none is held.
func scanHeldContext(results pgx.BatchResults) (*conversation.StoredContext, error) {
	var held conversation.StoredContext
	var updatedAt time.Time
	switch err := results.QueryRow().Scan(&held.Data, &updatedAt); {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read context: %w", err)
	}
	held.UpdatedAt = &updatedAt
	return &held, nil
}

// scanHeldRequests reads the batch's context requests and supplied items
// into out, whose conversation is already read.
func scanHeldRequests(results pgx.BatchResults, out *conversation.Export) error {
	tenantID, conversationID := out.TenantID, out.Conversation.ID
	rows, err := results.Query()
	if err != nil {
		return fmt.Errorf("read context requests: %w", err)
	}
	out.ContextRequests, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (conversation.ContextRequest, error) {
		r := conversation.ContextRequest{TenantID: tenantID, ConversationID: conversationID}
		err := row.Scan(&r.ID, &r.Status, &r.Items, &r.Question, &r.CreatedAt, &r.ExpiresAt, &r.ResolvedAt)
		return r, err
	})
	if err != nil {
		return fmt.Errorf("read context requests: %w", err)
	}

	if rows, err = results.Query(); err != nil {
		return fmt.Errorf("read supplied items: %w", err)
	}
	out.SuppliedItems, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (conversation.SuppliedItem, error) {
		it := conversation.SuppliedItem{TenantID: tenantID, ConversationID: conversationID}
		err := row.Scan(&it.ID, &it.RequestID, &it.Key, &it.Kind, &it.Content, &it.Redacted, &it.CreatedAt, &it.LastUsedAt)
		return it, err
	})
	if err != nil {
		return fmt.Errorf("read supplied items: %w", err)
	}
	return nil
}

func emptyListsNotNull(e *conversation.Export) {
	if e.Turns == nil {
		e.Turns = []conversation.Turn{}
	}
	if e.ContextRequests == nil {
		e.ContextRequests = []conversation.ContextRequest{}
	}
	if e.SuppliedItems == nil {
		e.SuppliedItems = []conversation.SuppliedItem{}
	}
}

const updateConversation = `
UPDATE conversations c
SET title = coalesce($3::text, title), archived = coalesce($4::boolean, archived),
    profile = coalesce($5::jsonb, profile)
WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND ` + ownedConversation + `
RETURNING ` + conversationColumns

// UpdateConversation implements conversation.Admin.
func (s *Store) UpdateConversation(ctx context.Context, tenantID, conversationID string, u conversation.Update) (conversation.Conversation, error) {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.Conversation{}, err
	}
	u, err = u.Validate()
	if err != nil {
		return conversation.Conversation{}, err
	}
	profile, err := encodeProfile(u.Profile)
	if err != nil {
		return conversation.Conversation{}, fmt.Errorf("update conversation: %w", err)
	}
	c, err := scanConversation(sc.queryRow(ctx, s.pool, updateConversation, tenantID, conversationID, u.Title, u.Archived, profile), tenantID)
	if errors.Is(err, pgx.ErrNoRows) {
		return conversation.Conversation{}, conversation.ErrNotFound
	}
	if err != nil {
		return conversation.Conversation{}, fmt.Errorf("update conversation: %w", err)
	}
	return c, nil
}

// The conversation row is locked first: a concurrent turn (which updates
// it, or inserts children that key-share lock it) waits for the erase and
// then finds nothing. Children are deleted explicitly rather than left to
// the cascades, so the counts say what was erased; items go before
// requests because they reference them.
var eraseConversation = []string{
	`SELECT 1 FROM conversations c WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND ` + ownedConversation + ` FOR UPDATE`,
	`DELETE FROM turn_feedback WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid`,
	`DELETE FROM supplied_context_items WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid`,
	`DELETE FROM context_requests WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid`,
	`DELETE FROM conversation_context WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid`,
	`DELETE FROM conversation_turns WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid`,
	`DELETE FROM conversations WHERE tenant_id = $1::uuid AND id = $2::uuid`,
}

// DeleteConversation implements conversation.Admin: the lock and the six
// deletes go in one batch inside one transaction.
func (s *Store) DeleteConversation(ctx context.Context, tenantID, conversationID string) (conversation.Erased, error) {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.Erased{}, err
	}
	var erased conversation.Erased
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		batch := sc.newBatch()
		for _, sql := range eraseConversation {
			batch.Queue(sql, tenantID, conversationID)
		}
		results, err := send(ctx, tx, batch)
		if err != nil {
			return err
		}
		defer results.Close()
		var one int
		if err := results.QueryRow().Scan(&one); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return conversation.ErrNotFound
			}
			return err
		}
		for _, count := range []*int64{&erased.Feedback, &erased.SuppliedItems, &erased.ContextRequests, &erased.Contexts,
			&erased.Turns, &erased.Conversations} {
			tag, err := results.Exec()
			if err != nil {
				return err
			}
			*count = tag.RowsAffected()
		}
		return results.Close()
	})
	if errors.Is(err, conversation.ErrNotFound) {
		return conversation.Erased{}, err
	}
	if err != nil {
		return conversation.Erased{}, fmt.Errorf("delete conversation: %w", err)
	}
	return erased, nil
}
