//! Shared pieces of the integration tests: the guest components built by `build.rs` (the
//! hostile test components of `components/` and the example validators of
//! `checks/examples/`), handed to the tests by [`foreach_component!`]. The tests
//! themselves are in `all/`; `all/components.rs` makes a constant of each component.

include!(concat!(env!("OUT_DIR"), "/components.rs"));
