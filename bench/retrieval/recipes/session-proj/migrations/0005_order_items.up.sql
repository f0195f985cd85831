CREATE TABLE order_items (order_id INTEGER REFERENCES orders(id), sku TEXT REFERENCES products(sku), qty INTEGER NOT NULL DEFAULT 1);
