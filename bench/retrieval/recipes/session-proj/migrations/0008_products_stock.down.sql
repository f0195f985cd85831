ALTER TABLE products RENAME COLUMN title TO name;
ALTER TABLE products DROP COLUMN stock;
