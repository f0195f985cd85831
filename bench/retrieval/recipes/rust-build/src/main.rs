mod inventory;
mod pricing;

use inventory::{Inventory, Item};

fn main() {
    let mut inv = Inventory::new();
    inv.add(Item { sku: "A-100".to_string(), qty: 3, price_cents: 1299 });
    inv.add(Item { sku: "B-200".to_string(), qty: 0, price_cents: 499 });
    let first = inv.items.first();
    inv.items.push(Item { sku: "C-300".to_string(), qty: 7, price_cents: 250 });
    println!("first: {:?}", first.map(|i| &i.sku));
    let total: u64 = pricing::order_total(&inv.items, "SPRING10");
    println!("total {}", total);
    let unused_discount = 5;
}
