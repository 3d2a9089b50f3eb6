-- +goose Up
CREATE TABLE jobs (
  id bigint PRIMARY KEY,
  status text NOT NULL DEFAULT 'ready',
  note text,
  touched_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE jobs;
