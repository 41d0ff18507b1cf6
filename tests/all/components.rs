//! The guest components the tests load, one constant each holding the path of its
//! `.wasm`: every crate of `tests/components/` (the hostile test components) and
//! `checks/examples/` (the example validators), found and built by `tests/build.rs`.
//!
//! `dead_code` is denied here, so a component that no test uses does not compile: a
//! guest added without a test is an error (`constant `NAME` is never used`), as in
//! wasmtime's `test-programs`.
#![deny(dead_code)]

macro_rules! component {
    ($name:ident, $path:literal, $doc:literal) => {
        #[doc = $doc]
        pub const $name: &str = $path;
    };
}

reviewhost_tests::foreach_component!(component);
