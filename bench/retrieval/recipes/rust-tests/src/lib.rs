pub mod ledger {
    #[derive(Debug, PartialEq)]
    pub struct Entry {
        pub account: String,
        pub cents: i64,
    }

    pub fn parse_line(line: &str) -> Result<Entry, String> {
        let mut parts = line.split(',');
        let account = parts.next().ok_or("missing account")?.trim().to_string();
        let cents = parts
            .next()
            .ok_or("missing amount")?
            .trim()
            .parse::<i64>()
            .map_err(|e| format!("bad amount in {:?}: {}", line, e))?;
        Ok(Entry { account, cents })
    }

    pub fn balance(entries: &[Entry], account: &str) -> i64 {
        entries.iter().filter(|e| e.account == account).map(|e| e.cents).sum()
    }

    pub fn largest(entries: &[Entry]) -> &Entry {
        let mut best = &entries[0];
        for e in entries {
            if e.cents > best.cents {
                best = e;
            }
        }
        best
    }

    pub fn monthly_fee(balance: i64) -> i64 {
        if balance < 1000 { 250 } else { 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::ledger::*;

    fn sample() -> Vec<Entry> {
        ["alice, 1200", "bob, -300", "alice, -50", "carol, 990"].iter().map(|l| parse_line(l).unwrap()).collect()
    }

    #[test] fn parses_a_line() { assert_eq!(parse_line("dave, 42").unwrap(), Entry { account: "dave".into(), cents: 42 }); }
    #[test] fn rejects_a_bad_amount() { assert!(parse_line("dave, forty").is_err()); }
    #[test] fn balance_of_alice() { assert_eq!(balance(&sample(), "alice"), 1150); }
    #[test] fn balance_of_nobody() { assert_eq!(balance(&sample(), "zed"), 0); }
    #[test] fn largest_entry() { assert_eq!(largest(&sample()).account, "alice"); }
    #[test] fn largest_of_none() { let empty: Vec<Entry> = vec![]; assert_eq!(largest(&empty).cents, 0); }
    #[test] fn fee_below_threshold() { assert_eq!(monthly_fee(999), 250); }
    #[test] fn fee_at_threshold() { assert_eq!(monthly_fee(1000), 250, "accounts at exactly the threshold still pay the fee"); }
    #[test] fn parses_negative() { assert_eq!(parse_line("erin,-7").unwrap().cents, -7); }
    #[test] fn parses_with_spaces() { assert_eq!(parse_line("  frank ,  12 ").unwrap().account, "frank"); }
    #[test] fn sum_case_1() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 1 }], "x"), 1); }
    #[test] fn sum_case_2() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 2 }], "x"), 2); }
    #[test] fn sum_case_3() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 3 }], "x"), 3); }
    #[test] fn sum_case_4() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 4 }], "x"), 4); }
    #[test] fn sum_case_5() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 5 }], "x"), 5); }
    #[test] fn sum_case_6() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 6 }], "x"), 6); }
    #[test] fn sum_case_7() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 7 }], "x"), 7); }
    #[test] fn sum_case_8() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 8 }], "x"), 8); }
    #[test] fn sum_case_9() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 9 }], "x"), 9); }
    #[test] fn sum_case_10() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 10 }], "x"), 10); }
    #[test] fn sum_case_11() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 11 }], "x"), 11); }
    #[test] fn sum_case_12() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 12 }], "x"), 12); }
    #[test] fn sum_case_13() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 13 }], "x"), 13); }
    #[test] fn sum_case_14() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 14 }], "x"), 14); }
    #[test] fn sum_case_15() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 15 }], "x"), 15); }
    #[test] fn sum_case_16() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 16 }], "x"), 16); }
    #[test] fn sum_case_17() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 17 }], "x"), 17); }
    #[test] fn sum_case_18() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 18 }], "x"), 18); }
    #[test] fn sum_case_19() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 19 }], "x"), 19); }
    #[test] fn sum_case_20() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 20 }], "x"), 20); }
    #[test] fn sum_case_21() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 21 }], "x"), 21); }
    #[test] fn sum_case_22() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 22 }], "x"), 22); }
    #[test] fn sum_case_23() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 23 }], "x"), 23); }
    #[test] fn sum_case_24() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 24 }], "x"), 24); }
    #[test] fn sum_case_25() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 25 }], "x"), 25); }
    #[test] fn sum_case_26() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 26 }], "x"), 26); }
    #[test] fn sum_case_27() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 27 }], "x"), 27); }
    #[test] fn sum_case_28() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 28 }], "x"), 28); }
    #[test] fn sum_case_29() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 29 }], "x"), 29); }
    #[test] fn sum_case_30() { assert_eq!(balance(&[Entry { account: "x".into(), cents: 30 }], "x"), 30); }
}
