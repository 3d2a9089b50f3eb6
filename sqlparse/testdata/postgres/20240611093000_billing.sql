-- +goose Up
-- Billing lives in its own schema; open invoices are looked up per customer.
CREATE SCHEMA billing;

CREATE TABLE billing.invoice (
  id          bigserial PRIMARY KEY,
  customer_id bigint      NOT NULL,
  status      text        NOT NULL DEFAULT 'open',  -- 'open'; 'paid'; 'void'
  total_cents bigint      NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TYPE billing.currency AS ENUM ('EUR', 'USD');
CREATE SEQUENCE billing.invoice_no START 1000;

-- +goose NO TRANSACTION
CREATE INDEX CONCURRENTLY invoice_open_by_customer
  ON billing.invoice (customer_id, created_at DESC)
  INCLUDE (total_cents)
  WHERE status = 'open';

ALTER TABLE jobs
  ADD COLUMN priority smallint NOT NULL DEFAULT 0,
  ADD CONSTRAINT jobs_priority_range CHECK (priority BETWEEN 0 AND 9);
CREATE INDEX jobs_lower_note ON jobs (lower(note));
ALTER TABLE jobs RENAME COLUMN note TO remark;

-- +goose StatementBegin
CREATE VIEW billing.open_invoice AS
  SELECT id, customer_id, total_cents FROM billing.invoice WHERE status = 'open';
-- +goose StatementEnd

-- +goose Down
DROP VIEW billing.open_invoice;
ALTER TABLE jobs RENAME COLUMN remark TO note;
DROP INDEX jobs_lower_note;
ALTER TABLE jobs DROP CONSTRAINT jobs_priority_range, DROP COLUMN priority;
DROP SCHEMA billing CASCADE;
