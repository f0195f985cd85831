ALTER TABLE orders DROP COLUMN owner_id;
