import sqlite3


def order_total(conn: sqlite3.Connection, order_id: int) -> int:
    row = conn.execute(
        "SELECT SUM(p.price_cents * i.qty) FROM order_items i JOIN products p ON p.sku = i.sku WHERE i.order_id = ?",
        (order_id,),
    ).fetchone()
    return row[0] or 0


def open_orders(conn: sqlite3.Connection) -> list:
    return conn.execute("SELECT id, status FROM orders WHERE status != 'shipped' ORDER BY id").fetchall()
