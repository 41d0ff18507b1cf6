// SPDX-License-Identifier: MIT
//! A tiny crate for reviewhost's example assertions to look at.

/// Adds two numbers.
pub fn add(a: i32, b: i32) -> i32 {
    a + b
}
