import pytest
from shop.cart import Cart, Item


@pytest.fixture
def cart():
    c = Cart()
    c.add(Item("apple", 0.5, 4))
    c.add(Item("bread", 2.25))
    return c


def test_subtotal(cart):
    assert cart.subtotal() == 4.25


def test_merges_same_sku(cart):
    cart.add(Item("apple", 0.5, 2))
    assert [i.qty for i in cart.items] == [6, 1]


def test_half_coupon(cart):
    cart.coupon = "HALF"
    assert cart.total() == 2.13


def test_tenoff_never_negative(cart):
    cart.coupon = "TENOFF"
    assert cart.total() >= 0, f"total went negative: {cart.total()}"


def test_shipping_us_free_over_50():
    c = Cart([Item("tv", 499.0)])
    assert c.shipping("US") == 0.0


def test_shipping_to_japan(cart):
    assert cart.shipping("JP") == 19.0


def test_legacy_total(cart):
    assert cart.legacy_total() == 4.25


@pytest.mark.parametrize("qty", range(1, 41))
def test_qty_scales(qty):
    c = Cart([Item("pen", 1.5, qty)])
    assert c.subtotal() == pytest.approx(1.5 * qty)


@pytest.mark.skip(reason="needs the payment sandbox")
def test_checkout_charges_card(cart):
    pass
