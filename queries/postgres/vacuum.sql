-- run --vacuum: the cleanup of the dead rows a variant left behind, on one
-- table at a time, with what it did told in notices. VERBOSE gives the
-- table's summary at INFO on every major; the per-index counts (entries
-- removed, pages deleted) and the heap's dead line pointers made unused
-- are DEBUG2 messages from 15 on (INFO before), so the session asks for
-- them. Messages, by major (checked on 13.23, 14.23, 15.18, 16.14, 17.10, 18.1):
--   13:  "t": found N removable, M nonremovable row versions in X out of Y pages
--   14:  table "t": found N removable, ...           (same figures)
--   15+: finished vacuuming "db.s.t": ... pages: R removed, Y remain, X scanned ...
--        tuples: N removed, ...  buffer usage: H hits, M misses|reads, D dirtied
--   13:  "t": removed N row versions in P pages      (dead line pointers made unused)
--   14+: table "t": removed N dead item identifiers in P pages
--   13/14: "t": truncated A to B pages / table "t": truncated A to B pages
--   all: index "i" now contains N row versions in P pages
--        DETAIL: K index row versions were removed.
--        D index pages have been deleted, ... (13) | D index pages were newly deleted. (14+)

-- name: vacuum_messages
SET client_min_messages = debug2

-- name: vacuum_messages_reset
RESET client_min_messages

-- name: vacuum
-- {{table}} is the quoted schema-qualified name. Default options: the
-- vacuum autovacuum would run (14+ may skip the index pass when few pages
-- hold dead items, and then says so).
VACUUM (VERBOSE) {{table}}
