//! Host bindings to the two WIT worlds of `wit/`: `builtin-check`, which the checks
//! built into the binary implement (and whose `files` interface the host provides), and
//! `custom-validator`, which a custom validator implements.

pub mod builtin {
    wasmtime::component::bindgen!({ path: "wit", world: "builtin-check" });
}
pub mod validator {
    wasmtime::component::bindgen!({ path: "wit", world: "custom-validator" });
}
