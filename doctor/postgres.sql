-- What `writeamp doctor` asks PostgreSQL beyond the probe.

-- name: can_create_schema
-- The refresh-token workload creates its own schema in the database.
SELECT has_database_privilege(current_database(), 'CREATE')
