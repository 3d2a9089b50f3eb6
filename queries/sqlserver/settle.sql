-- SQL Server: preparing the server around a measured window.

-- name: checkpoint
CHECKPOINT
