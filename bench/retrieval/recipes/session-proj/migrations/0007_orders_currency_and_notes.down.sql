DROP INDEX idx_orders_status;
ALTER TABLE orders DROP COLUMN notes;
ALTER TABLE orders DROP COLUMN currency;
