// SPDX-License-Identifier: MIT
//! A small inventory crate for reviewhost's example validators to look at.

mod format;

pub use format::money;

/// One line of an order.
pub struct Item {
    pub name: String,
    pub quantity: u32,
    pub unit_price_cents: u64,
}

/// The total of an order, in cents.
pub fn total(items: &[Item]) -> u64 {
    items.iter().map(|item| u64::from(item.quantity) * item.unit_price_cents).sum()
}

/// A plain-text receipt: one line per item, a discount line and the total.
///
/// It has grown one special case at a time; `max-function-lines` flags it.
pub fn receipt(items: &[Item], discount_percent: u32) -> String {
    let mut out = String::new();
    out.push_str("RECEIPT\n");
    out.push_str("=======\n");
    let mut subtotal = 0;
    for item in items {
        let line_total = u64::from(item.quantity) * item.unit_price_cents;
        subtotal += line_total;
        out.push_str(&item.name);
        out.push_str(" x");
        out.push_str(&item.quantity.to_string());
        out.push_str(": ");
        out.push_str(&money(line_total));
        out.push('\n');
    }
    out.push_str("-------\n");
    out.push_str("subtotal: ");
    out.push_str(&money(subtotal));
    out.push('\n');
    let discount = subtotal * u64::from(discount_percent.min(100)) / 100;
    if discount > 0 {
        out.push_str("discount: -");
        out.push_str(&money(discount));
        out.push('\n');
    }
    out.push_str("total: ");
    out.push_str(&money(subtotal - discount));
    out.push('\n');
    out
}
