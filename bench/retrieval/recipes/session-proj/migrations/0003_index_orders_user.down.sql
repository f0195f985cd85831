DROP INDEX idx_orders_user;
