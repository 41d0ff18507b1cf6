//! Formatting helpers. This file has no license header: `license-header` flags it.

/// Cents as dollars and cents: `1234` -> `$12.34`.
pub fn money(cents: u64) -> String {
    format!("${}.{:02}", cents / 100, cents % 100)
}
