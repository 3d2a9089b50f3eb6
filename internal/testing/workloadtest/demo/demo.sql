-- The demo workload's statements (PostgreSQL). {{schema}} is its own schema.

-- name: demo_ddl_indexed
-- v is indexed: every update changes a key column, so none can be HOT.
CREATE TABLE {{schema}}.counter (id int PRIMARY KEY, v int NOT NULL) WITH (autovacuum_enabled = false);
CREATE INDEX counter_v ON {{schema}}.counter (v)

-- name: demo_ddl_plain
CREATE TABLE {{schema}}.counter (id int PRIMARY KEY, v int NOT NULL) WITH (autovacuum_enabled = false, fillfactor = 50)

-- name: demo_seed
INSERT INTO {{schema}}.counter (id, v) SELECT g, 0 FROM generate_series(1, $1) g

-- name: demo_update
UPDATE {{schema}}.counter SET v = v + 1 WHERE id = $1
