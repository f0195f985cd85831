import sqlite3


def connect(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY, total REAL NOT NULL)")
    return conn


def save_order(conn: sqlite3.Connection, total: float) -> int:
    cur = conn.execute("INSERT INTO orders (total) VALUES (?)", (total,))
    return cur.lastrowid
