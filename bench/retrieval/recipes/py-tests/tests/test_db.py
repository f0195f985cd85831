import pytest
from shop import db


@pytest.fixture
def conn(tmp_path):
    c = db.connect(str(tmp_path / "shop.db"))
    c.execute("INSERT INTO orders (id, total) VALUES (1, 10.0)")
    c.execute("INSERT INTO orders (id, total) VALUES (1, 12.0)")
    yield c
    c.close()


def test_save_order(conn):
    assert db.save_order(conn, 42.0) == 2


def test_save_order_fresh(tmp_path):
    c = db.connect(str(tmp_path / "fresh.db"))
    assert db.save_order(c, 9.99) == 1
