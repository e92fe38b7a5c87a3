package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"regintel/shared/conversation"
)

var _ conversation.Streams = (*Store)(nil)

// A running turn writes its stream in one batch per AppendStream: the
// events, the answer so far and the read of the stop flag. Readers poll
// with one batch per ReadStream.

// clearRecordedEvents and startRecording clear the conversation's earlier recorded events and
// points its stream row at turn $3, with no stop asked.
const (
	clearRecordedEvents = `
DELETE FROM turn_stream_events WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid` + ofOwnedConversation
	startRecording = `
INSERT INTO turn_streams AS s (tenant_id, conversation_id, owner_id, turn_number, format)
VALUES ($1::uuid, $2::uuid, '', $3::integer, $4)
ON CONFLICT (tenant_id, conversation_id) DO UPDATE
SET turn_number = EXCLUDED.turn_number, format = EXCLUDED.format, updated_at = now(),
    stop_requested = s.stop_requested AND s.turn_number = EXCLUDED.turn_number`
)

// appendEvents inserts the events ($4 seqs, $5 names, $6 data) of turn $3
// if it is the one being recorded.
const appendEvents = `
INSERT INTO turn_stream_events (tenant_id, conversation_id, owner_id, turn_number, seq, name, data)
SELECT s.tenant_id, s.conversation_id, '', s.turn_number, e.seq, e.name, e.data
FROM turn_streams s, unnest($4::integer[], $5::text[], $6::text[]) AS e(seq, name, data)
WHERE s.tenant_id = $1::uuid AND s.conversation_id = $2::uuid AND s.turn_number = $3::integer
  AND s.owner_id = regintel_scope_owner()`

// updateAnswerSoFar stores the streaming turn's answer so far.
const updateAnswerSoFar = `
UPDATE conversation_turns SET assistant_text = $4
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid AND turn_number = $3::integer
  AND status = 'streaming'` + ofOwnedConversation

const selectStopRequested = `
SELECT stop_requested FROM turn_streams
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid AND turn_number = $3::integer` + ofOwnedConversation

// spendStop clears the stop flag after a turn's last batch has read it.
const spendStop = `
UPDATE turn_streams SET stop_requested = false
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid AND turn_number = $3::integer AND stop_requested` + ofOwnedConversation

// AppendStream stores b and reads the stop flag in one batch.
func (s *Store) AppendStream(ctx context.Context, tenantID, conversationID string, b conversation.StreamBatch) (bool, error) {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return false, err
	}
	batch := sc.newBatch()
	if len(b.Events) > 0 && b.Events[0].Seq == 0 {
		batch.Queue(clearRecordedEvents, tenantID, conversationID)
		batch.Queue(startRecording, tenantID, conversationID, b.TurnNumber, b.Format)
	}
	if len(b.Events) > 0 {
		seqs, names, data := make([]int32, len(b.Events)), make([]string, len(b.Events)), make([]string, len(b.Events))
		for i, ev := range b.Events {
			seqs[i], names[i], data[i] = int32(ev.Seq), ev.Name, string(ev.Data)
		}
		batch.Queue(appendEvents, tenantID, conversationID, b.TurnNumber, seqs, names, data)
	}
	if b.AnswerSoFar != nil {
		batch.Queue(updateAnswerSoFar, tenantID, conversationID, b.TurnNumber, *b.AnswerSoFar)
	}
	batch.Queue(selectStopRequested, tenantID, conversationID, b.TurnNumber)
	if b.Final {
		batch.Queue(spendStop, tenantID, conversationID, b.TurnNumber)
	}
	results, err := send(ctx, s.pool, batch)
	if err != nil {
		return false, fmt.Errorf("append stream: %w", err)
	}
	defer results.Close()
	return readAppended(results, b)
}

// readAppended reads what AppendStream queued, in order.
func readAppended(results pgx.BatchResults, b conversation.StreamBatch) (bool, error) {
	if len(b.Events) > 0 && b.Events[0].Seq == 0 {
		if _, err := results.Exec(); err != nil {
			return false, fmt.Errorf("append stream: clear: %w", err)
		}
		if _, err := results.Exec(); err != nil {
			return false, fmt.Errorf("append stream: start: %w", err)
		}
	}
	if len(b.Events) > 0 {
		tag, err := results.Exec()
		if err != nil {
			return false, fmt.Errorf("append stream: events: %w", err)
		}
		if tag.RowsAffected() != int64(len(b.Events)) {
			return false, fmt.Errorf("append stream: turn %d is not being recorded", b.TurnNumber)
		}
	}
	if b.AnswerSoFar != nil {
		if _, err := results.Exec(); err != nil {
			return false, fmt.Errorf("append stream: answer: %w", err)
		}
	}
	var stop bool
	if err := results.QueryRow().Scan(&stop); err != nil {
		return false, fmt.Errorf("append stream: stop flag: %w", err)
	}
	if b.Final {
		if _, err := results.Exec(); err != nil {
			return false, fmt.Errorf("append stream: spend the stop: %w", err)
		}
	}
	return stop, results.Close()
}

// readRecorded reads the recorded turn, the conversation's last turn and
// whether that one runs (streaming, the lease held), and whether the
// conversation is the caller's at all (no row).
const readRecorded = `
SELECT coalesce(s.turn_number, 0), c.last_turn_number,
       coalesce(t.status = 'streaming' AND c.turn_lease_until > now(), false),
       coalesce(s.format, '')
FROM conversations c
LEFT JOIN turn_streams s ON s.tenant_id = c.tenant_id AND s.conversation_id = c.id
LEFT JOIN conversation_turns t ON t.tenant_id = c.tenant_id AND t.conversation_id = c.id AND t.turn_number = c.last_turn_number
WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND ` + ownedConversation

const selectRecordedEvents = `
SELECT seq, name, data, turn_number FROM turn_stream_events
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid AND seq > $3::integer` + ofOwnedConversation + `
ORDER BY seq`

// ReadStream reads the recorded turn and then its events, in one batch:
// events written after the turn was read are read too, never the reverse.
func (s *Store) ReadStream(ctx context.Context, tenantID, conversationID string, afterSeq int) (conversation.TurnStream, error) {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return conversation.TurnStream{}, err
	}
	batch := sc.newBatch()
	batch.Queue(readRecorded, tenantID, conversationID)
	batch.Queue(selectRecordedEvents, tenantID, conversationID, afterSeq)
	results, err := send(ctx, s.pool, batch)
	if err != nil {
		return conversation.TurnStream{}, fmt.Errorf("read stream: %w", err)
	}
	defer results.Close()
	var out conversation.TurnStream
	var last int
	switch err := results.QueryRow().Scan(&out.TurnNumber, &last, &out.Running, &out.Format); {
	case errors.Is(err, pgx.ErrNoRows):
		return conversation.TurnStream{}, conversation.ErrNotFound
	case err != nil:
		return conversation.TurnStream{}, fmt.Errorf("read stream: %w", err)
	}
	rows, err := results.Query()
	if err != nil {
		return conversation.TurnStream{}, fmt.Errorf("read stream events: %w", err)
	}
	type recorded struct {
		conversation.StreamEvent
		turn int
	}
	all, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (recorded, error) {
		var ev recorded
		var data string
		err := row.Scan(&ev.Seq, &ev.Name, &data, &ev.turn)
		ev.Data = []byte(data)
		return ev, err
	})
	if err != nil {
		return conversation.TurnStream{}, fmt.Errorf("read stream events: %w", err)
	}
	// A stop asked before the running turn's first write points the row
	// at it while the earlier turn's events are still there.
	out.Events = []conversation.StreamEvent{}
	for _, ev := range all {
		if ev.turn == out.TurnNumber {
			out.Events = append(out.Events, ev.StreamEvent)
		}
	}
	if out.Running && out.TurnNumber != last {
		// The running turn has recorded nothing yet; the events are an earlier turn's.
		out = conversation.TurnStream{TurnNumber: last, Running: true, Events: []conversation.StreamEvent{}}
	}
	return out, results.Close()
}

// stopRunning sets the stop flag of the conversation's last turn if it
// runs (streaming, the lease held), recorded or not yet.
const stopRunning = `
INSERT INTO turn_streams AS s (tenant_id, conversation_id, owner_id, turn_number, stop_requested)
SELECT c.tenant_id, c.id, '', c.last_turn_number, true
FROM conversations c
JOIN conversation_turns t ON t.tenant_id = c.tenant_id AND t.conversation_id = c.id AND t.turn_number = c.last_turn_number
WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND ` + ownedConversation + `
  AND c.turn_lease_until > now() AND t.status = 'streaming'
ON CONFLICT (tenant_id, conversation_id) DO UPDATE
SET stop_requested = true, updated_at = now(),
    -- Another turn's recording stays until the running turn's first write.
    turn_number = EXCLUDED.turn_number
RETURNING 1`

// StopStream sets the stop flag; a conversation that is not the caller's
// costs a second round trip to tell ErrNotFound from no running turn.
func (s *Store) StopStream(ctx context.Context, tenantID, conversationID string) (bool, error) {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return false, err
	}
	var one int
	switch err := sc.queryRow(ctx, s.pool, stopRunning, tenantID, conversationID).Scan(&one); {
	case err == nil:
		return true, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return false, fmt.Errorf("stop stream: %w", err)
	}
	switch err := sc.queryRow(ctx, s.pool, conversationExists, tenantID, conversationID).Scan(&one); {
	case errors.Is(err, pgx.ErrNoRows):
		return false, conversation.ErrNotFound
	case err != nil:
		return false, fmt.Errorf("stop stream: %w", err)
	}
	return false, nil
}
