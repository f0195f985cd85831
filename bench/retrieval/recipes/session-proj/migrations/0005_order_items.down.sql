DROP TABLE order_items;
