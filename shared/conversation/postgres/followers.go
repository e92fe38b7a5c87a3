package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"regintel/shared/conversation"
)

var _ conversation.StreamFollowers = (*Store)(nil)

// lockFollowedConversation takes the conversation's row lock for the
// batch, so concurrent followers count the places one after another:
// each later statement of the batch reads with a snapshot taken after
// the lock, and sees the places the ones before it took.
const lockFollowedConversation = `
SELECT 1 FROM conversations c
WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND ` + ownedConversation + `
FOR NO KEY UPDATE`

// dropLapsedPlaces deletes the conversation's places whose lease lapsed.
const dropLapsedPlaces = `
DELETE FROM turn_stream_followers
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid AND lease_until <= now()` + ofOwnedConversation

// takePlace renews place $3 when held, else takes it while fewer than $4
// other places are held, for $5 milliseconds: no row returned means the
// places are all taken.
const takePlace = `
WITH held AS (
    SELECT count(*) FILTER (WHERE place <> $3::uuid) AS others, coalesce(bool_or(place = $3::uuid), false) AS mine
    FROM turn_stream_followers
    WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid` + ofOwnedConversation + `
)
INSERT INTO turn_stream_followers (tenant_id, conversation_id, owner_id, place, lease_until)
SELECT c.tenant_id, c.id, '', $3::uuid, now() + $5::bigint * interval '1 millisecond'
FROM conversations c, held
WHERE c.tenant_id = $1::uuid AND c.id = $2::uuid AND ` + ownedConversation + `
  AND (held.mine OR held.others < $4::integer)
ON CONFLICT (tenant_id, conversation_id, place) DO UPDATE SET lease_until = EXCLUDED.lease_until
RETURNING 1`

// FollowStream renews or takes a follower's place, in one round trip.
func (s *Store) FollowStream(ctx context.Context, tenantID, conversationID, place string, max int, lease time.Duration) error {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return err
	}
	if !isUUID(place) {
		return fmt.Errorf("follow stream: the place %q is not a UUID", place)
	}
	batch := sc.newBatch()
	batch.Queue(lockFollowedConversation, tenantID, conversationID)
	batch.Queue(dropLapsedPlaces, tenantID, conversationID)
	batch.Queue(takePlace, tenantID, conversationID, place, max, lease.Milliseconds())
	results, err := send(ctx, s.pool, batch)
	if err != nil {
		return fmt.Errorf("follow stream: %w", err)
	}
	defer results.Close()
	var one int
	switch err := results.QueryRow().Scan(&one); {
	case errors.Is(err, pgx.ErrNoRows):
		return conversation.ErrNotFound
	case err != nil:
		return fmt.Errorf("follow stream: %w", err)
	}
	if _, err := results.Exec(); err != nil {
		return fmt.Errorf("follow stream: drop lapsed places: %w", err)
	}
	switch err := results.QueryRow().Scan(&one); {
	case errors.Is(err, pgx.ErrNoRows):
		return conversation.ErrTooManyFollowers
	case err != nil:
		return fmt.Errorf("follow stream: %w", err)
	}
	return results.Close()
}

const leavePlace = `
DELETE FROM turn_stream_followers
WHERE tenant_id = $1::uuid AND conversation_id = $2::uuid AND place = $3::uuid` + ofOwnedConversation

// UnfollowStream gives the place back.
func (s *Store) UnfollowStream(ctx context.Context, tenantID, conversationID, place string) error {
	sc, err := scope(ctx, tenantID, conversationID)
	if err != nil {
		return err
	}
	if !isUUID(place) {
		return fmt.Errorf("unfollow stream: the place %q is not a UUID", place)
	}
	if _, err := sc.exec(ctx, s.pool, leavePlace, tenantID, conversationID, place); err != nil {
		return fmt.Errorf("unfollow stream: %w", err)
	}
	return nil
}
