-- merge_active_node_ids was a SQL function too complex to inline, so
-- Postgres parsed and planned its body on every call (each stored turn).
-- As PL/pgSQL its plan is prepared once per connection; what it returns is
-- unchanged.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION merge_active_node_ids(existing jsonb, incoming text[], max_nodes integer)
RETURNS jsonb
LANGUAGE plpgsql
IMMUTABLE
AS $$
BEGIN
    RETURN (
        WITH previous AS (
            SELECT CASE WHEN jsonb_typeof(existing) = 'array' THEN existing ELSE '[]'::jsonb END AS ids
        ),
        positioned AS (
            SELECT e.id, e.pos
            FROM previous, jsonb_array_elements_text(previous.ids) WITH ORDINALITY AS e(id, pos)
            UNION ALL
            SELECT n.id, jsonb_array_length(previous.ids) + n.pos
            FROM previous, unnest(incoming) WITH ORDINALITY AS n(id, pos)
        ),
        newest AS (
            SELECT id, max(pos) AS pos
            FROM positioned
            WHERE id IS NOT NULL AND id <> ''
            GROUP BY id
            ORDER BY max(pos) DESC
            LIMIT greatest(max_nodes, 0)
        )
        SELECT coalesce(jsonb_agg(id ORDER BY pos), '[]'::jsonb) FROM newest
    );
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION merge_active_node_ids(existing jsonb, incoming text[], max_nodes integer)
RETURNS jsonb
LANGUAGE sql
IMMUTABLE
AS $$
    WITH previous AS (
        SELECT CASE WHEN jsonb_typeof(existing) = 'array' THEN existing ELSE '[]'::jsonb END AS ids
    ),
    positioned AS (
        SELECT e.id, e.pos
        FROM previous, jsonb_array_elements_text(previous.ids) WITH ORDINALITY AS e(id, pos)
        UNION ALL
        SELECT n.id, jsonb_array_length(previous.ids) + n.pos
        FROM previous, unnest(incoming) WITH ORDINALITY AS n(id, pos)
    ),
    newest AS (
        SELECT id, max(pos) AS pos
        FROM positioned
        WHERE id IS NOT NULL AND id <> ''
        GROUP BY id
        ORDER BY max(pos) DESC
        LIMIT greatest(max_nodes, 0)
    )
    SELECT coalesce(jsonb_agg(id ORDER BY pos), '[]'::jsonb) FROM newest
$$;
-- +goose StatementEnd
