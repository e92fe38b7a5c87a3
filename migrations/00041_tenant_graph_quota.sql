-- The per-tenant daily quota of the concept resolver: one counter per
-- tenant, UTC day and counter (new shared graph nodes, enrichment jobs).
-- A capture is counted in one statement that holds the row's lock and
-- refuses the unit past the limit, so concurrent resolver instances share
-- one count (shared/quota). It holds no text: ids, a date and numbers.

-- +goose Up
CREATE TABLE tenant_graph_quota (
    tenant_id uuid    NOT NULL,
    day       date    NOT NULL,
    counter   text    NOT NULL CHECK (counter IN ('new_nodes', 'enrichment_jobs')),
    used      integer NOT NULL CHECK (used >= 0),
    PRIMARY KEY (tenant_id, day, counter)
);

ALTER TABLE tenant_graph_quota ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_graph_quota FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_graph_quota_tenant ON tenant_graph_quota
    USING (tenant_id = regintel_scope_tenant());

-- +goose Down
DROP TABLE IF EXISTS tenant_graph_quota;
