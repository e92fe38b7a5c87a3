-- The retention sweep deletes an idle conversation's recorded turn stream
-- with the rest of its engine memory (shared/retention): its role sees
-- every tenant's rows of the two stream tables, as of the others
-- (00010).

-- +goose Up
CREATE POLICY turn_streams_retention ON turn_streams TO regintel_retention USING (true);
CREATE POLICY turn_stream_events_retention ON turn_stream_events TO regintel_retention USING (true);

-- +goose Down
DROP POLICY IF EXISTS turn_stream_events_retention ON turn_stream_events;
DROP POLICY IF EXISTS turn_streams_retention ON turn_streams;
