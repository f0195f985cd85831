ALTER TABLE orders ADD COLUMN currency TEXT NOT NULL DEFAULT 'EUR';
ALTER TABLE orders ADD COLUMN notes TEXT;
UPDATE orders SET currency = 'USD' WHERE user_id IN (SELECT id FROM users WHERE email LIKE '%.us');
CREATE INDEX idx_orders_status ON orders(status);
