#[derive(Debug, Clone)]
pub struct Item {
    pub sku: String,
    pub qty: u64,
    pub price_cents: u64,
}

pub struct Inventory {
    pub items: Vec<Item>,
}

impl Inventory {
    pub fn new() -> Self {
        Inventory { items: Vec::new() }
    }
    pub fn add(&mut self, item: Item) {
        self.items.push(item);
    }
    pub fn in_stock(&self) -> impl Iterator<Item = &Item> {
        self.items.iter().filter(|i| i.qty > 0)
    }
    pub fn find(&self, sku: &str) -> Option<&Item> {
        self.items.iter().find(|i| i.sku == sku)
    }
}
