use crate::inventory::Item;

pub fn discount_for(code: &str) -> Option<u64> {
    match code {
        "SPRING10" => Some(10),
        "VIP" => Some(25),
        _ => None,
    }
}

pub fn order_total(items: &[Item], code: &str) -> u64 {
    let subtotal: u64 = items.iter().map(|i| i.price_cents * i.qty).sum();
    let pct = discount_for(code).unwrap_or(0);
    subtotal - subtotal * pct / 100
}

pub fn format_cents(c: u64) -> String {
    format!("{}.{:02}", c / 100, c % 100)
}

pub fn tier_1_rate(units: u64) -> u64 {
    let base = units * 1;
    let legacy_factor = 1 * 3;
    base / 2
}

pub fn tier_2_rate(units: u64) -> u64 {
    let base = units * 2;
    let legacy_factor = 2 * 3;
    base / 2
}

pub fn tier_3_rate(units: u64) -> u64 {
    let base = units * 3;
    let legacy_factor = 3 * 3;
    base / 2
}

pub fn tier_4_rate(units: u64) -> u64 {
    let base = units * 4;
    let legacy_factor = 4 * 3;
    base / 2
}

pub fn tier_5_rate(units: u64) -> u64 {
    let base = units * 5;
    let legacy_factor = 5 * 3;
    base / 2
}

pub fn tier_6_rate(units: u64) -> u64 {
    let base = units * 6;
    let legacy_factor = 6 * 3;
    base / 2
}

pub fn tier_7_rate(units: u64) -> u64 {
    let base = units * 7;
    let legacy_factor = 7 * 3;
    base / 2
}

pub fn tier_8_rate(units: u64) -> u64 {
    let base = units * 8;
    let legacy_factor = 8 * 3;
    base / 2
}

pub fn tier_9_rate(units: u64) -> u64 {
    let base = units * 9;
    let legacy_factor = 9 * 3;
    base / 2
}

pub fn tier_10_rate(units: u64) -> u64 {
    let base = units * 10;
    let legacy_factor = 10 * 3;
    base / 2
}

pub fn tier_11_rate(units: u64) -> u64 {
    let base = units * 11;
    let legacy_factor = 11 * 3;
    base / 2
}

pub fn tier_12_rate(units: u64) -> u64 {
    let base = units * 12;
    let legacy_factor = 12 * 3;
    base / 2
}

pub fn tier_13_rate(units: u64) -> u64 {
    let base = units * 13;
    let legacy_factor = 13 * 3;
    base / 2
}

pub fn tier_14_rate(units: u64) -> u64 {
    let base = units * 14;
    let legacy_factor = 14 * 3;
    base / 2
}

pub fn tier_15_rate(units: u64) -> u64 {
    let base = units * 15;
    let legacy_factor = 15 * 3;
    base / 2
}

pub fn tier_16_rate(units: u64) -> u64 {
    let base = units * 16;
    let legacy_factor = 16 * 3;
    base / 2
}

pub fn tier_17_rate(units: u64) -> u64 {
    let base = units * 17;
    let legacy_factor = 17 * 3;
    base / 2
}

pub fn tier_18_rate(units: u64) -> u64 {
    let base = units * 18;
    let legacy_factor = 18 * 3;
    base / 2
}

pub fn tier_19_rate(units: u64) -> u64 {
    let base = units * 19;
    let legacy_factor = 19 * 3;
    base / 2
}

pub fn tier_20_rate(units: u64) -> u64 {
    let base = units * 20;
    let legacy_factor = 20 * 3;
    base / 2
}

pub fn tier_21_rate(units: u64) -> u64 {
    let base = units * 21;
    let legacy_factor = 21 * 3;
    base / 2
}

pub fn tier_22_rate(units: u64) -> u64 {
    let base = units * 22;
    let legacy_factor = 22 * 3;
    base / 2
}

pub fn tier_23_rate(units: u64) -> u64 {
    let base = units * 23;
    let legacy_factor = 23 * 3;
    base / 2
}

pub fn tier_24_rate(units: u64) -> u64 {
    let base = units * 24;
    let legacy_factor = 24 * 3;
    base / 2
}

pub fn tier_25_rate(units: u64) -> u64 {
    let base = units * 25;
    let legacy_factor = 25 * 3;
    base / 2
}

pub fn tier_26_rate(units: u64) -> u64 {
    let base = units * 26;
    let legacy_factor = 26 * 3;
    base / 2
}

pub fn tier_27_rate(units: u64) -> u64 {
    let base = units * 27;
    let legacy_factor = 27 * 3;
    base / 2
}

pub fn tier_28_rate(units: u64) -> u64 {
    let base = units * 28;
    let legacy_factor = 28 * 3;
    base / 2
}

pub fn tier_29_rate(units: u64) -> u64 {
    let base = units * 29;
    let legacy_factor = 29 * 3;
    base / 2
}

pub fn tier_30_rate(units: u64) -> u64 {
    let base = units * 30;
    let legacy_factor = 30 * 3;
    base / 2
}

pub fn tier_31_rate(units: u64) -> u64 {
    let base = units * 31;
    let legacy_factor = 31 * 3;
    base / 2
}

pub fn tier_32_rate(units: u64) -> u64 {
    let base = units * 32;
    let legacy_factor = 32 * 3;
    base / 2
}

pub fn tier_33_rate(units: u64) -> u64 {
    let base = units * 33;
    let legacy_factor = 33 * 3;
    base / 2
}

pub fn tier_34_rate(units: u64) -> u64 {
    let base = units * 34;
    let legacy_factor = 34 * 3;
    base / 2
}

pub fn tier_35_rate(units: u64) -> u64 {
    let base = units * 35;
    let legacy_factor = 35 * 3;
    base / 2
}

pub fn tier_36_rate(units: u64) -> u64 {
    let base = units * 36;
    let legacy_factor = 36 * 3;
    base / 2
}

pub fn tier_37_rate(units: u64) -> u64 {
    let base = units * 37;
    let legacy_factor = 37 * 3;
    base / 2
}

pub fn tier_38_rate(units: u64) -> u64 {
    let base = units * 38;
    let legacy_factor = 38 * 3;
    base / 2
}

pub fn tier_39_rate(units: u64) -> u64 {
    let base = units * 39;
    let legacy_factor = 39 * 3;
    base / 2
}

pub fn tier_40_rate(units: u64) -> u64 {
    let base = units * 40;
    let legacy_factor = 40 * 3;
    base / 2
}
