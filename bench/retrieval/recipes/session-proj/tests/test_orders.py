import sqlite3
import pathlib
import pytest
from app.orders import order_total, open_orders

ROOT = pathlib.Path(__file__).parent.parent


@pytest.fixture
def conn():
    c = sqlite3.connect(ROOT / "app.db")
    yield c
    c.rollback()
    c.close()


def test_order_total_empty(conn):
    assert order_total(conn, 999) == 0


def test_products_have_name_column(conn):
    cols = [r[1] for r in conn.execute("PRAGMA table_info(products)")]
    assert "name" in cols, f"products columns: {cols}"


def test_open_orders_sorted(conn):
    assert open_orders(conn) == sorted(open_orders(conn))
