-- A tenant's usage for the day was one row, updated by every turn the
-- tenant stored: concurrent turns of one tenant queued on that row's lock
-- (16 concurrent turns waited ~15 ms each to store). The day's usage is now
-- spread over 16 rows, the shard picked by the conversation id; the daily
-- cap reads their sum.

-- +goose Up
ALTER TABLE tenant_daily_usage ADD COLUMN shard smallint NOT NULL DEFAULT 0;
ALTER TABLE tenant_daily_usage DROP CONSTRAINT tenant_daily_usage_pkey;
ALTER TABLE tenant_daily_usage ADD PRIMARY KEY (tenant_id, day, shard);

-- +goose Down
-- The owner reads every tenant's rows only while RLS is not forced.
ALTER TABLE tenant_daily_usage NO FORCE ROW LEVEL SECURITY;
CREATE TEMP TABLE merged_usage ON COMMIT DROP AS
SELECT tenant_id, day, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
       sum(total_tokens) AS total_tokens, sum(turns)::integer AS turns, max(updated_at) AS updated_at
FROM tenant_daily_usage GROUP BY tenant_id, day;
DELETE FROM tenant_daily_usage;
ALTER TABLE tenant_daily_usage DROP CONSTRAINT tenant_daily_usage_pkey;
ALTER TABLE tenant_daily_usage DROP COLUMN shard;
ALTER TABLE tenant_daily_usage ADD PRIMARY KEY (tenant_id, day);
INSERT INTO tenant_daily_usage (tenant_id, day, input_tokens, output_tokens, total_tokens, turns, updated_at)
SELECT tenant_id, day, input_tokens, output_tokens, total_tokens, turns, updated_at FROM merged_usage;
ALTER TABLE tenant_daily_usage FORCE ROW LEVEL SECURITY;
