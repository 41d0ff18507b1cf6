//! Shared pieces of the integration tests: the hostile test components built by
//! `build.rs`. The tests themselves are in `all/`.

/// Loops forever.
pub const SPIN: &str = env!("TEST_COMPONENT_SPIN");
/// Allocates without bound.
pub const BALLOON: &str = env!("TEST_COMPONENT_BALLOON");
/// Reads whatever `path` names, FIFOs included.
pub const FIFO_READER: &str = env!("TEST_COMPONENT_FIFO_READER");
/// Tries to write, delete, connect, look up names and read env/args/stdin.
pub const VANDAL: &str = env!("TEST_COMPONENT_VANDAL");
/// A validator that lists and reads what its config names.
pub const PROBE: &str = env!("TEST_COMPONENT_PROBE");
/// A validator built against reviewhost:check@9.0.0.
pub const FUTURE_VALIDATOR: &str = env!("TEST_COMPONENT_FUTURE_VALIDATOR");
/// A validator that imports an interface no host provides.
pub const ROGUE_IMPORT: &str = env!("TEST_COMPONENT_ROGUE_IMPORT");
