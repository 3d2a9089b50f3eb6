-- What `writeamp check` sends of its own around a user's migration (PostgreSQL).

-- name: set_search_path
SELECT set_config('search_path', $1, false)

-- name: reset_search_path
RESET search_path

-- name: rollback
ROLLBACK
