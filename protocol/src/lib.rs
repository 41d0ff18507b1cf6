//! The protocol between the host and its built-in checks.
//!
//! The host decides what an assertion asks (its `type`, its `expected`, a path made
//! root-relative); a built-in check only applies that decision inside the sandbox. Both
//! sides are compiled from these types, so a field cannot be renamed on one side only:
//! the host serializes an input ([`FileCheck`], [`ShellInput`]) to JSON, the check
//! deserializes the same type. The grammar of the assertion's `expected` field lives
//! here too ([`Expected`]), with its one parser.
//!
//! Custom validators do not speak this protocol: they get their `config` through the
//! `validator` world of `wit/check.wit`.

mod expected;
mod input;

pub use expected::Expected;
pub use input::{FileCheck, Intent, Mode, Rule, SearchPlan, ShellInput, ShellOutput};
