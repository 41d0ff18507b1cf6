//! What a run prints: the seed-compatible text summary or a JSON document.

mod json;
mod text;

pub use json::write_json;
pub use text::write_text;

/// The output formats of `reviewhost run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One line per assertion and a confidence line, like seed 000's runner.
    Text,
    /// One JSON document with every result, its message, evidence and duration.
    Json,
}
