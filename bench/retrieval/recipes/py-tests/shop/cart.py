import warnings
from dataclasses import dataclass, field


@dataclass
class Item:
    sku: str
    price: float
    qty: int = 1


@dataclass
class Cart:
    items: list = field(default_factory=list)
    coupon: str | None = None

    def add(self, item: Item) -> None:
        for existing in self.items:
            if existing.sku == item.sku:
                existing.qty += item.qty
                return
        self.items.append(item)

    def subtotal(self) -> float:
        return sum(i.price * i.qty for i in self.items)

    def discount(self) -> float:
        if self.coupon == "HALF":
            return self.subtotal() / 2
        if self.coupon == "TENOFF":
            return 10
        return 0.0

    def total(self) -> float:
        return round(self.subtotal() - self.discount(), 2)

    def shipping(self, country: str) -> float:
        if country == "US":
            return 0.0 if self.subtotal() >= 50 else 5.99
        rates = {"DE": 9.5, "FR": 9.5}
        return rates[country]

    def legacy_total(self) -> float:
        warnings.warn("legacy_total() is deprecated; use total()", DeprecationWarning, stacklevel=2)
        return self.total()
