//! Shared pieces of the integration tests: the hostile test components and the example
//! validators built by `build.rs`. The tests themselves are in `all/`.

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
/// Example: every matching file starts with a license header (`checks/examples/license-header`).
pub const EXAMPLE_LICENSE_HEADER: &str = env!("TEST_COMPONENT_EXAMPLE_LICENSE_HEADER");
/// Example: a JSON file conforms to a JSON Schema (`checks/examples/json-schema`).
pub const EXAMPLE_JSON_SCHEMA: &str = env!("TEST_COMPONENT_EXAMPLE_JSON_SCHEMA");
/// Example: no Rust function is longer than `max` lines (`checks/examples/max-function-lines`).
pub const EXAMPLE_MAX_FUNCTION_LINES: &str = env!("TEST_COMPONENT_EXAMPLE_MAX_FUNCTION_LINES");
/// One attack per assertion, chosen by `config.attack` (see its crate docs).
pub const HOSTILE: &str = env!("TEST_COMPONENT_HOSTILE");
/// A validator whose static constructor loops forever.
pub const INIT_SPIN: &str = env!("TEST_COMPONENT_INIT_SPIN");
/// A validator whose static constructor traps.
pub const INIT_TRAP: &str = env!("TEST_COMPONENT_INIT_TRAP");
/// A built-in-world check that asks the host's whole-file reads for each of its `paths`.
pub const WHOLE_READER: &str = env!("TEST_COMPONENT_WHOLE_READER");
/// A custom validator that imports the whole-file reads meant for built-in checks.
pub const FILES_VALIDATOR: &str = env!("TEST_COMPONENT_FILES_VALIDATOR");
